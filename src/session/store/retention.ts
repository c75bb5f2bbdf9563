import { DELIVERY_DEADLINE_MS } from "../api/delivery-schedule";
import { pruneEventsBefore } from "./event-log";

// SPEC §23 "every table bounded": the object's own pruning of what grows with use and is not pruned by
// its table's owner already (run streams, deliveries and collector results are; the event log keeps
// its own 30-day and 10,000 bounds, and here goes with the runs after `runRetention`). Each call
// removes at most PRUNE_BATCH rows per table, oldest first through an index (0029), so a pass never
// becomes a long transaction; it runs at every run's start and on the alarm, which keeps pace with
// growth (one run adds one row) and catches up on a backlog over a few passes.

/** Rows per table per pass. */
export const PRUNE_BATCH = 100;

/**
 * How long a sent record answers a repeat of its idempotency key: a caller's retries come within
 * minutes to hours; later, the target's own run row (its `dedupe_key`, kept runRetention) still does.
 */
export const SENT_DEDUPE_WINDOW_MS = 24 * 60 * 60_000;

/** What one pass removed, per table. */
export interface PruneCounts {
  runs: number;
  events: number;
  sent: number;
  sentTexts: number;
  collectorCounts: number;
}

/** Runs the object's table pruning once; `runRetentionMs` from the agent's policy (config/maintenance.ts). */
export function pruneSessionTables(sql: SqlStorage, runRetentionMs: number, now: number): PruneCounts {
  return {
    runs: pruneEndedRuns(sql, now - runRetentionMs),
    events: pruneEventsBefore(sql, now - runRetentionMs, PRUNE_BATCH),
    ...pruneSent(sql, now),
    collectorCounts: pruneCollectorCounts(sql),
  };
}

/**
 * Ended runs that ended before `before`, with what hangs off them (stream, tool results, steering,
 * structured output). The session's newest run stays whatever its age: the row, status and list show it.
 */
function pruneEndedRuns(sql: SqlStorage, before: number): number {
  const runIds = sql
    .exec<{ run_id: string }>(
      `SELECT run_id FROM run WHERE ended_at IS NOT NULL AND ended_at < ?
         AND run_id IS NOT (SELECT last_run_id FROM session WHERE id = 1)
       ORDER BY ended_at LIMIT ?`,
      before,
      PRUNE_BATCH,
    )
    .toArray()
    .map((row) => row.run_id);
  if (runIds.length === 0) return 0;
  const ids = JSON.stringify(runIds);
  for (const table of ["run_event", "tool_call", "steering", "structured_output", "run"])
    sql.exec(`DELETE FROM ${table} WHERE run_id IN (SELECT value FROM json_each(?))`, ids);
  return runIds.length;
}

/**
 * Sent records: the turn's text once it can no longer be needed (the Queue reads it until the delivery
 * deadline; nothing is owed for it any more), and the record itself after its dedupe window.
 */
export function pruneSent(sql: SqlStorage, now: number): { sent: number; sentTexts: number } {
  sql.exec(
    `UPDATE sent SET turn = NULL WHERE run_id IN (
       SELECT run_id FROM sent WHERE created_at < ? AND turn IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM outbox WHERE dedupe_key = 'send:' || sent.run_id)
       ORDER BY created_at LIMIT ?)`,
    now - DELIVERY_DEADLINE_MS,
    PRUNE_BATCH,
  );
  const sentTexts = changes(sql);
  sql.exec(
    "DELETE FROM sent WHERE run_id IN (SELECT run_id FROM sent WHERE created_at < ? ORDER BY created_at LIMIT ?)",
    now - SENT_DEDUPE_WINDOW_MS,
    PRUNE_BATCH,
  );
  return { sent: changes(sql), sentTexts };
}

/**
 * Lifetime admission counts of groups with no member left (their results were pruned 7 days after
 * they ended): a group id used again after that starts a new count.
 */
function pruneCollectorCounts(sql: SqlStorage): number {
  sql.exec(
    `DELETE FROM collector_admitted WHERE group_id IN (
       SELECT group_id FROM collector_admitted AS a
       WHERE NOT EXISTS (SELECT 1 FROM collector AS c WHERE c.group_id = a.group_id) LIMIT ?)`,
    PRUNE_BATCH,
  );
  return changes(sql);
}

/**
 * Storage with no session in it and nothing left to do or answer: no record (not even a deleted one's
 * tombstone), no send to answer a repeat of, nothing owed, no run, no transcript. What a requester that
 * sent before it existed as a session leaves once its sent records are pruned: its storage is dropped.
 */
export function holdsNothing(sql: SqlStorage): boolean {
  const tables = ["session", "sent", "outbox", "run", "message", "watcher", "collector"];
  const exists = tables.map((table) => `EXISTS (SELECT 1 FROM ${table})`).join(" OR ");
  return sql.exec<{ any: number }>(`SELECT (${exists}) AS any`).one().any === 0;
}

/** Rows the last statement changed (rowsWritten would count index writes too). */
function changes(sql: SqlStorage): number {
  return sql.exec<{ n: number }>("SELECT changes() AS n").one().n;
}
