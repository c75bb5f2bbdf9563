import { shardNumber } from "../index-db/shards";
import type { QueueMessage } from "./messages";

/** The bindings the deliveries queues are read from (the Worker's Env, or a part of it). */
export type QueueBindings = Pick<Env, "DELIVERIES"> & {
  readonly [queue: `DELIVERIES_${number}`]: Queue | undefined;
};

/**
 * The deliveries queue a message goes to: `DELIVERIES`, `DELIVERIES_1`, … (bound up to the first
 * number missing), chosen by the session it is for (a send's target, a post's producing session) with
 * the index's routing function. One queue
 * takes ~5,000 messages a second; all are consumed by the same handler (src/queue/consumer.ts), so
 * which one carries a message changes nothing but the load, and a change of the count is harmless.
 */
export function deliveryQueue(env: QueueBindings, message: QueueMessage): Queue {
  if (!env.DELIVERIES_1) return env.DELIVERIES;
  const sessionKey = message.type === "outbound" ? message.sessionKey : message.targetKey;
  const queues: Queue[] = [env.DELIVERIES];
  for (let n = 1; ; n++) {
    const queue = env[`DELIVERIES_${n}`];
    if (!queue) break;
    queues.push(queue);
  }
  return queues[shardNumber(sessionKey, queues.length)] ?? env.DELIVERIES;
}
