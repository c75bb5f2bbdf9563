import type { DeliveryStatus, RunProgress } from "./api";
import type { SessionRecord } from "./record";
import { findRun, type RunRow } from "./run-store";

/** The outbox key of a run's completion (src/session/run-ending.ts). */
export const completionKey = (runId: string) => `completion:${runId}`;

/** Records, with a run's end, whether it owed its requester a completion. */
export function recordCompletionOwed(sql: SqlStorage, runId: string, owed: boolean): void {
  sql.exec("UPDATE run SET completion = ? WHERE run_id = ?", owed ? "owed" : "none", runId);
}

/** A completion nobody was left to take (the requester and every session above it are gone). */
export function recordCompletionUndeliverable(sql: SqlStorage, dedupeKey: string | undefined): void {
  if (!dedupeKey?.startsWith("completion:")) return;
  sql.exec("UPDATE run SET completion = 'failed' WHERE run_id = ?", dedupeKey.slice("completion:".length));
}

/**
 * The one place a run's completion delivery is derived (SPEC §16), until the delivery ledger records
 * it: owed while the run is underway; once it ended, pending while its outbox entry is there, delivered
 * once the requester took it (the entry is gone), not_required when none was owed.
 */
function deliveryStatusOf(sql: SqlStorage, record: SessionRecord, row: RunRow | undefined): DeliveryStatus {
  if (!record.spawn) return "not_required";
  if (!row || row.status === "queued" || row.status === "running" || isYielded(sql, row)) return "pending";
  if (row.completion === "failed") return "failed";
  if (row.completion !== "owed") return "not_required";
  const owed = sql.exec("SELECT 1 FROM outbox WHERE dedupe_key = ?", completionKey(row.runId)).toArray();
  return owed.length > 0 ? "pending" : "delivered";
}

/** A run that ended by sessions_yield leaves its note in the transcript (src/session/writes.ts). */
function isYielded(sql: SqlStorage, row: RunRow): boolean {
  if (row.status !== "ok") return false;
  return sql.exec("SELECT 1 FROM message WHERE id = ?", `yield:${row.runId}`).toArray().length > 0;
}

/** The session's latest run after `row`, if any. */
function latestRunAfter(sql: SqlStorage, row: RunRow): RunRow | undefined {
  const found = sql
    .exec<{ run_id: string }>("SELECT run_id FROM run WHERE seq > ? ORDER BY seq DESC LIMIT 1", row.seq)
    .toArray()[0];
  return found ? findRun(sql, found.run_id) : undefined;
}

/** The session's latest run, if it yielded and nothing came after it: it waits for its children. */
export function waitingRun(sql: SqlStorage): RunRow | undefined {
  const latest = sql
    .exec<{ run_id: string }>("SELECT run_id FROM run ORDER BY seq DESC LIMIT 1")
    .toArray()[0];
  const row = latest ? findRun(sql, latest.run_id) : undefined;
  return row && isYielded(sql, row) ? row : undefined;
}

const ENDED_AS = { ok: "done", error: "failed", timeout: "timeout", killed: "killed" } as const;

const MAX_LABEL_CHARS = 80;
const MAX_ERROR_CHARS = 120;

/**
 * A run's progress. A yielded run waits for its children: the session's later run (started by a
 * completion) carries the work on, so that run's state and end are reported under this runId.
 */
export function runProgress(sql: SqlStorage, record: SessionRecord, runId: string): RunProgress | undefined {
  const row = findRun(sql, runId);
  if (!row) return undefined;
  const current = isYielded(sql, row) ? latestRunAfter(sql, row) : row;
  const label = (record.label ?? record.spawn?.label ?? record.spawn?.task ?? record.sessionKey).slice(
    0,
    MAX_LABEL_CHARS,
  );
  const base = {
    runId,
    sessionKey: record.sessionKey,
    label,
    deliveryStatus: deliveryStatusOf(sql, record, current),
    startedAt: row.startedAt ?? row.createdAt,
  };
  if (!current || isYielded(sql, current)) return { ...base, status: "waiting" };
  if (current.status === "queued" || current.status === "running") return { ...base, status: "running" };
  return {
    ...base,
    status: ENDED_AS[current.status],
    outcome: {
      status: current.status,
      ...(current.error !== undefined ? { error: current.error.slice(0, MAX_ERROR_CHARS) } : {}),
    },
    ...(current.endedAt !== undefined ? { endedAt: current.endedAt } : {}),
  };
}

/** True while a run's work goes on: it runs, or waits for its children. */
export const isUnderway = (progress: RunProgress): boolean =>
  progress.status === "running" || progress.status === "waiting";
