import { loadConfig } from "../config/load";
import { deliverTurn, sessionApi } from "../session/client";
import { type QueueMessage, queueMessageSchema } from "./messages";
import { deliverOutbound } from "./outbound";

/** Retry backoff: 2 s doubling, at most 5 minutes; after `max_retries` the queue dead-letters it. */
function backoffSeconds(attempts: number): number {
  return Math.min(300, 2 ** Math.min(attempts, 8));
}

type Handled = { ack: true } | { ack: false; reason: string } | { deadLetter: string };

async function handle(env: Env, message: QueueMessage): Promise<Handled> {
  if (message.type === "send" || message.type === "send_ref") {
    const read =
      message.type === "send"
        ? ({ ok: true, value: message.turn } as const)
        : await sessionApi(env.SESSION, message.sourceKey).sentTurn(message.runId);
    if (!read.ok) return { deadLetter: `send to ${message.targetKey}: ${read.message}` };
    const request = read.value;
    // Idempotent at the target by runId: a redelivered send never adds a second transcript row.
    const taker = await deliverTurn(env.SESSION, { targets: [message.targetKey], request });
    return taker ? { ack: true } : { deadLetter: `target ${message.targetKey}: session not found` };
  }
  const config = loadConfig(env);
  if (!config.ok) return { ack: false, reason: config.error };
  const delivered = await deliverOutbound(env, config.config, message);
  if (delivered.kind === "delivered") return { ack: true };
  return delivered.kind === "retry"
    ? { ack: false, reason: delivered.reason }
    : { deadLetter: delivered.reason };
}

/** The queue consumer: every body is parsed; each message is acked, retried or dead-lettered explicitly. */
export async function handleQueueBatch(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  for (const message of batch.messages) {
    const parsed = queueMessageSchema.safeParse(message.body);
    let outcome: Handled;
    try {
      outcome = parsed.success ? await handle(env, parsed.data) : { deadLetter: "unknown message shape" };
    } catch (cause) {
      outcome = { ack: false, reason: cause instanceof Error ? cause.message : String(cause) };
    }
    if ("deadLetter" in outcome) {
      // Never going to work: keep it for an operator in the dead-letter queue, not in a retry loop.
      console.warn(`queue ${batch.queue}: message ${message.id} dead-lettered: ${outcome.deadLetter}`);
      await env.DEAD_LETTERS.send(
        { body: message.body, reason: outcome.deadLetter },
        { contentType: "json" },
      );
      message.ack();
    } else if (outcome.ack) {
      message.ack();
    } else {
      console.warn(
        `queue ${batch.queue}: message ${message.id} attempt ${message.attempts} failed: ${outcome.reason}`,
      );
      message.retry({ delaySeconds: backoffSeconds(message.attempts) });
    }
  }
}
