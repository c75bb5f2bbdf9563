import type { RunWebhook } from "../api";
import type { SessionRecord } from "../record/record";
import { addDelivery } from "../store/delivery-store";
import type { RunEnding, RunRow } from "../store/run-store";

/** What a webhook delivery is: where, the JSON body, and the key that makes it one delivery. */
export interface OwedWebhook {
  url: string;
  body: Record<string, unknown>;
  /** Unique per delivery (`run:<runId>`, `cron:<jobId>:<runId>`): its outbox key and `Idempotency-Key`. */
  key: string;
  /** The run it reports, for the ledger record (SPEC §16 `runId`). */
  runId?: string;
}

/** The ledger's `target` of a webhook: its origin and path, never its query (which may carry a token). */
function webhookTarget(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return "webhook";
  }
}

/**
 * Owes a signed outbound webhook (SPEC §22; call in the transaction of the change that owes it): a ledger
 * record of kind `webhook` and the outbox entry that carries it, POSTed by the outbox (signed for
 * `switchboard/webhooks/v1`), retried on a network error, 429 or 5xx by the ledger's schedule, failed at
 * once on another 4xx. The same key owes it once. The URL must have passed assertAllowedWebhook
 * (src/webhooks/allowed-origin.ts); each attempt checks it again. Cron's `webhook` delivery calls this.
 */
export function oweWebhook(sql: SqlStorage, webhook: OwedWebhook, now = Date.now()): string {
  return addDelivery(
    sql,
    "webhook",
    { ...(webhook.runId ? { runId: webhook.runId } : {}), target: webhookTarget(webhook.url) },
    {
      kind: "webhook",
      key: `webhook:${webhook.key}`,
      payload: { url: webhook.url, body: JSON.stringify(webhook.body), idempotencyKey: webhook.key },
    },
    now,
  );
}

/**
 * The ended run's outcome to its webhook: a run webhook's `{ runId, sessionKey, status, reply, usage,
 * startedAt, endedAt }`, a hook's `{ hook, runId, sessionKey, status, text, startedAt, endedAt }`, or a
 * cron job's `{ jobId, runId, status, text, startedAt, endedAt }`.
 */
export function oweRunWebhook(
  sql: SqlStorage,
  record: SessionRecord,
  run: RunRow & { webhook: RunWebhook },
  ending: RunEnding,
  endedAt: number,
): void {
  const common = { runId: run.runId, sessionKey: record.sessionKey, status: ending.status };
  const times = { startedAt: run.startedAt ?? null, endedAt };
  const { hook, jobId } = run.webhook;
  const text = ending.reply ?? null;
  const body =
    jobId !== undefined
      ? { jobId, runId: run.runId, status: ending.status, text, ...times }
      : hook !== undefined
        ? { hook, ...common, text, ...times }
        : { ...common, reply: text, usage: ending.usage ?? null, ...times };
  oweWebhook(sql, { url: run.webhook.url, body, key: `run:${run.runId}`, runId: run.runId }, endedAt);
}
