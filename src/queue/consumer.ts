import { loadConfig } from "../config/load";
import { ledgerError, retryDelayMs } from "../session/api";
import { deliverTurn, sessionApi } from "../session/client";
import { deadLetterOf } from "./dead-letters";
import type { DeliveryResult } from "./delivery-result";
import { type OutboundMessage, type QueueMessage, queueMessageSchema } from "./messages";
import { deliverOutbound } from "./outbound";

/** The dead-letter queue (wrangler.toml): what the deliveries queue gave up on, for the ledger. */
export const DEAD_LETTER_QUEUE = "switchboard-deliveries-dlq";

type Handled = { ack: true } | { retryInSeconds: number; reason: string } | { deadLetter: string };

/** The one schedule (SPEC §16), in the Queue's whole seconds, after a message's `attempts`. */
const retrySeconds = (attempts: number) => Math.ceil(retryDelayMs(attempts) / 1000);

/** Whole seconds until `at`, rounded up (never early), at least 1. */
const secondsUntil = (at: number) => Math.max(1, Math.ceil((at - Date.now()) / 1000));

/** The retry of a message whose attempts no ledger record answers for. */
const scheduled = (attempts: number, reason: string): Handled => ({
  retryInSeconds: retrySeconds(attempts),
  reason,
});

async function handleSend(
  env: Env,
  message: Extract<QueueMessage, { type: "send" | "send_ref" }>,
): Promise<Handled> {
  const read =
    message.type === "send"
      ? ({ ok: true, value: message.turn } as const)
      : await sessionApi(env.SESSION, message.sourceKey).sentTurn(message.runId);
  if (!read.ok) return { deadLetter: `send to ${message.targetKey}: ${read.message}` };
  // Idempotent at the target by runId: a redelivered send never adds a second transcript row.
  const taker = await deliverTurn(env.SESSION, { targets: [message.targetKey], request: read.value });
  return taker ? { ack: true } : { deadLetter: `target ${message.targetKey}: session not found` };
}

/**
 * A channel post: each attempt is reported to the producing session's ledger, which answers whether and
 * when to try again (its schedule, its 30-minute deadline). If the report cannot be made, the message is
 * retried: the channel deduplicates the post by its idempotency key, and the report is made then.
 */
/**
 * The parts of a split platform post an earlier attempt delivered (its ledger record counts them), so
 * they are not posted again. Only a text longer than the smallest platform limit can have parts.
 */
async function partsAlreadySent(env: Env, message: OutboundMessage): Promise<number> {
  if (!message.deliveryId || message.text.length <= SMALLEST_PART_LIMIT) return 0;
  const record = await sessionApi(env.SESSION, message.sessionKey).delivery(message.deliveryId);
  return record.ok ? (record.value.partsSent ?? 0) : 0;
}

/** Discord's 2,000 characters: a text within it is one part on every platform. */
const SMALLEST_PART_LIMIT = 2000;

async function handlePost(env: Env, message: OutboundMessage, attempts: number): Promise<Handled> {
  const config = loadConfig(env);
  const delivered: DeliveryResult = config.ok
    ? await deliverOutbound(env, config.config, message, await partsAlreadySent(env, message))
    : { kind: "retry", reason: config.error };
  if (delivered.kind === "delivered") {
    if (message.deliveryId)
      await sessionApi(env.SESSION, message.sessionKey).reportDelivery(message.deliveryId, {
        outcome: "delivered",
      });
    return { ack: true };
  }
  // A post owed before the ledger existed: the schedule alone, then the dead-letter queue.
  if (!message.deliveryId)
    return delivered.kind !== "retry"
      ? { deadLetter: delivered.reason }
      : delivered.retryAt !== undefined
        ? { retryInSeconds: secondsUntil(delivered.retryAt), reason: delivered.reason }
        : scheduled(attempts, delivered.reason);
  const outcome = delivered.kind === "retry" ? "retry" : "failed";
  const answer = await sessionApi(env.SESSION, message.sessionKey).reportDelivery(message.deliveryId, {
    outcome,
    error: delivered.reason,
    ...(delivered.kind === "retry" && delivered.retryAt !== undefined ? { retryAt: delivered.retryAt } : {}),
    ...(delivered.partsSent !== undefined ? { partsSent: delivered.partsSent } : {}),
  });
  // No record (its session was deleted meanwhile), or it is settled (failed, suspended): stop here.
  if (!answer.ok || !("retryInSeconds" in answer.value)) return { ack: true };
  return { retryInSeconds: answer.value.retryInSeconds, reason: delivered.reason };
}

async function handle(env: Env, message: QueueMessage, attempts: number): Promise<Handled> {
  return message.type === "outbound" ? handlePost(env, message, attempts) : handleSend(env, message);
}

/** The queue consumer: every body is parsed; each message is acked, retried or dead-lettered explicitly. */
export async function handleQueueBatch(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  if (batch.queue === DEAD_LETTER_QUEUE) return handleDeadLetters(batch, env);
  for (const message of batch.messages) {
    const parsed = queueMessageSchema.safeParse(message.body);
    let outcome: Handled;
    try {
      outcome = parsed.success
        ? await handle(env, parsed.data, message.attempts)
        : { deadLetter: "unknown message shape" };
    } catch (cause) {
      outcome = scheduled(message.attempts, cause instanceof Error ? cause.message : String(cause));
    }
    if ("deadLetter" in outcome) {
      // Never going to work: keep it for an operator in the dead-letter queue, not in a retry loop.
      console.warn(
        `queue ${batch.queue}: message ${message.id} dead-lettered: ${ledgerError(outcome.deadLetter)}`,
      );
      await env.DEAD_LETTERS.send(
        { body: message.body, reason: outcome.deadLetter },
        { contentType: "json" },
      );
      message.ack();
    } else if ("ack" in outcome) {
      message.ack();
    } else {
      console.warn(
        `queue ${batch.queue}: message ${message.id} attempt ${message.attempts} failed: ${ledgerError(outcome.reason)}`,
      );
      // A platform's retry_after past the Queue's longest delay: held that long, then tried (and held again).
      message.retry({ delaySeconds: Math.min(outcome.retryInSeconds, HOLD_SECONDS) });
    }
  }
}

/** The longest a Queue message can be held back (12 hours): what is not ours to settle stays that long. */
const HOLD_SECONDS = 12 * 60 * 60;

/**
 * The dead-letter queue's consumer: a channel post the deliveries queue gave up on is not dropped, its
 * ledger record is marked `suspended` for an operator to retry or dismiss (SPEC §16). Anything else (a
 * fire-and-forget send, a post from before the ledger) has no record to keep it in: it stays in the
 * dead-letter queue, held back 12 hours at a time (wrangler.toml bounds how long), and is never acked.
 */
async function handleDeadLetters(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  for (const message of batch.messages) {
    const { post, reason } = deadLetterOf(message.body);
    if (!post?.deliveryId) {
      if (message.attempts <= 1)
        console.error(
          `queue ${batch.queue}: message ${message.id} kept, no delivery record: ${ledgerError(reason)}`,
        );
      message.retry({ delaySeconds: HOLD_SECONDS });
      continue;
    }
    const marked = await sessionApi(env.SESSION, post.sessionKey)
      .reportDelivery(post.deliveryId, { outcome: "dead_letter", error: reason })
      .catch(() => undefined);
    if (marked) message.ack();
    else message.retry({ delaySeconds: retrySeconds(message.attempts) });
  }
}
