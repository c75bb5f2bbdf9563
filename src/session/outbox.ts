/** Kinds of cross-object effect the session object owes the rest of the system. */
export type OutboxKind = "index_sync" | "index_delete" | "run_index" | "turn" | "deliver" | "completion";

export interface OutboxEntry {
  id: number;
  kind: OutboxKind;
  payload: string;
  attempts: number;
}

// Retry backoff: 1 s doubling to 5 min; an index write is retried forever, never dropped.
const BASE_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 5 * 60 * 1000;

/**
 * Records an effect in the same transaction as the change that causes it. One pending entry per
 * `dedupeKey`: a newer change replaces an undelivered older one (the index only needs the latest).
 */
export function enqueueEffect(sql: SqlStorage, kind: OutboxKind, dedupeKey: string, payload: unknown): void {
  sql.exec(
    `INSERT INTO outbox (kind, dedupe_key, payload, next_attempt_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (dedupe_key) DO UPDATE SET kind = excluded.kind, payload = excluded.payload, attempts = 0,
       next_attempt_at = excluded.next_attempt_at, last_error = NULL`,
    kind,
    dedupeKey,
    JSON.stringify(payload),
    Date.now(),
  );
}

/** Every pending effect, oldest first. */
export function pendingEffects(sql: SqlStorage): OutboxEntry[] {
  return sql
    .exec<{ id: number; kind: OutboxKind; payload: string; attempts: number }>(
      "SELECT id, kind, payload, attempts FROM outbox ORDER BY id",
    )
    .toArray();
}

/** Removes a delivered effect, unless it was replaced by a newer one while it was being delivered. */
export function settleEffect(sql: SqlStorage, entry: OutboxEntry): void {
  sql.exec("DELETE FROM outbox WHERE id = ? AND payload = ?", entry.id, entry.payload);
}

/** Records a failed attempt and when to try again. */
export function deferEffect(sql: SqlStorage, entry: OutboxEntry, error: string): void {
  const delay = Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** entry.attempts);
  sql.exec(
    "UPDATE outbox SET attempts = attempts + 1, next_attempt_at = ?, last_error = ? WHERE id = ? AND payload = ?",
    Date.now() + delay,
    error.slice(0, 500),
    entry.id,
    entry.payload,
  );
}

/** When the alarm must next fire for the outbox, if anything is pending. */
export function nextOutboxAttempt(sql: SqlStorage): number | undefined {
  const row = sql.exec<{ next: number | null }>("SELECT MIN(next_attempt_at) AS next FROM outbox").one();
  return row.next ?? undefined;
}
