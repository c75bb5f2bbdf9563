/**
 * Driving sessions without waiting for the clock: every alarm loop of the tests is one of these.
 *
 * One contract throughout: a *round* runs the alarm of each session in `keys`, in order, right now
 * (`runDurableObjectAlarm`; a no-op where none is set), whatever time it was set for. The handler takes
 * only what is due by the clock (queued runs, deadlines passed, archiving, outbox entries); a round first
 * moves each session's clock past its outbox retries (`skipRetryWaits`), so a failed delivery is tried
 * again in the next round rather than 15 seconds later. Tests of the schedule itself run the alarm
 * directly (`runDurableObjectAlarm`) and move the stored times themselves.
 *
 * - `runAlarms(keys, n)`: exactly n rounds (to show that nothing more happens however often they run).
 * - `driveUntil(keys, probe, what)`: probe, round, probe, round... until the probe gives a value, which it
 *   returns; throws after `timeoutMs`. What the real Queue carries is consumed on its own schedule (its
 *   batch timeout is a second), so a test waits for it here: the probe looks again after every round.
 * - `drive(keys)`: rounds until none of the sessions has an alarm due now.
 *
 * No sleeps: each round is the alarms and the probe's own I/O. `deliverBatch` drives the queue consumer
 * directly with a batch the test builds.
 */
import {
  createExecutionContext,
  createMessageBatch,
  getQueueResult,
  runDurableObjectAlarm,
  runInDurableObject,
} from "cloudflare:test";
import { env } from "cloudflare:workers";
import worker from "../../src/index";
import { stub } from "./sessions";

/** `rounds` rounds: each runs the alarm of every session in `keys`, in order, now. */
export async function runAlarms(keys: string[], rounds = 1): Promise<void> {
  for (let round = 0; round < rounds; round++)
    for (const key of keys) {
      await skipRetryWaits(key);
      await runDurableObjectAlarm(stub(key));
    }
}

/**
 * The session's failed outbox entries (attempts > 0) become due now, as if their retry time had come.
 * Fresh entries keep their time: a send the Worker is putting on the Queue has a grace period.
 */
export async function skipRetryWaits(key: string): Promise<void> {
  await runInDurableObject(stub(key), (_instance, state) => {
    // A deleted session's object holds no schema at all (SPEC §23): nothing of it to hurry.
    const tables = state.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'outbox'").toArray();
    if (tables.length === 0) return;
    const now = Date.now();
    state.storage.sql.exec(
      "UPDATE outbox SET next_attempt_at = ? WHERE attempts > 0 AND next_attempt_at > ?",
      now,
      now,
    );
  });
}

/** Rounds until `probe` gives a value (not undefined), which is returned; throws after `timeoutMs`. */
export async function driveUntil<T>(
  keys: string[],
  probe: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await runAlarms(keys);
  }
}

/** Rounds until none of the sessions has an alarm due now, so what they owe others is delivered. */
export async function drive(keys: string[]): Promise<void> {
  await driveUntil(
    keys,
    async () => ((await alarmsDue(keys)) ? undefined : true),
    `${keys.join(", ")} to have no alarm due`,
  );
}

/** True if one of the sessions has an alarm set for now or earlier. */
async function alarmsDue(keys: string[]): Promise<boolean> {
  for (const key of keys) {
    const due = await runInDurableObject(stub(key), (_instance, state) => state.storage.getAlarm());
    if (due !== null && due <= Date.now()) return true;
  }
  return false;
}

/** A queue message as a test hands it to the consumer; `attempts` is 1 unless told. */
export interface TestQueueMessage {
  id: string;
  body: unknown;
  attempts?: number;
}

/**
 * Hands one batch of `queue` (the deliveries queue unless told) to the Worker's queue handler, as the
 * Queues runtime would, and returns what it acked
 * and retried. getQueueResult does not keep retry delays, so each message's retry delay is noted too.
 */
export async function deliverBatch(
  messages: TestQueueMessage[],
  bindings: Env = env,
  queue = "switchboard-deliveries",
) {
  const batch = createMessageBatch(
    queue,
    messages.map((message) => ({ ...message, attempts: message.attempts ?? 1, timestamp: Date.now() })),
  );
  const delays: Record<string, number | undefined> = {};
  const observed: MessageBatch = {
    queue: batch.queue,
    metadata: batch.metadata,
    messages: batch.messages.map((message) => ({
      id: message.id,
      timestamp: message.timestamp,
      body: message.body,
      attempts: message.attempts,
      ack: () => message.ack(),
      retry: (options?: QueueRetryOptions) => {
        delays[message.id] = options?.delaySeconds;
        message.retry(options);
      },
    })),
    ackAll: () => batch.ackAll(),
    retryAll: (options?: QueueRetryOptions) => batch.retryAll(options),
  };
  const ctx = createExecutionContext();
  // The handler takes no ExecutionContext; getQueueResult still wants one to wait on.
  await worker.queue(observed, bindings);
  return { ...(await getQueueResult(batch, ctx)), delays };
}
