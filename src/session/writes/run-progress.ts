import type { TranscriptMessage } from "../../transcript/message";
import type { DeliveryStatus, RunProgress } from "../api";
import type { SessionRecord } from "../record/record";
import { completionStatus } from "../store/delivery-ledger";
import { completionKey, hasOutboxEntry } from "../store/outbox-store";
import {
  findRun,
  latestRun,
  nextRun,
  RESTARTED_BY_STEER,
  type RunRow,
  STATUS_OF_ENDING,
  setRunCompletion,
} from "../store/run-store";
import { hasMessage } from "../transcript/transcript";

/** The id of the hidden note a yielded run leaves in the transcript (src/session/writes/writes.ts). */
export const yieldNoteId = (runId: string) => `yield:${runId}`;

/** The hidden note a yielded run leaves: its yield's message, kept as context for the next turn. */
export function yieldNote(runId: string, message: string, now: number): TranscriptMessage {
  return {
    id: yieldNoteId(runId),
    role: "system",
    content: message,
    hidden: true,
    provenance: { kind: "system" },
    timestamp: now,
    runId,
  };
}

/** Records, with a run's end, whether it owed its requester a completion. */
export function recordCompletionOwed(sql: SqlStorage, runId: string, owed: boolean): void {
  setRunCompletion(sql, runId, owed ? "owed" : "none");
}

/**
 * The one place a run's completion delivery is read (SPEC §16): pending while the run is underway; once
 * it ended, its ledger record's status; not_required when none was owed. A run that ended before the
 * ledger existed is derived from its outbox entry: pending while it is there, delivered once gone.
 */
function deliveryStatusOf(sql: SqlStorage, record: SessionRecord, row: RunRow | undefined): DeliveryStatus {
  if (!record.spawn) return "not_required";
  if (!row || row.status === "queued" || row.status === "running" || isYielded(sql, row)) return "pending";
  const recorded = completionStatus(sql, row.runId);
  if (recorded) return recorded;
  if (row.completion === "none" || row.completion === undefined) return "not_required";
  if (row.completion !== "owed") return row.completion;
  return hasOutboxEntry(sql, completionKey(row.runId)) ? "pending" : "delivered";
}

/** A run that yielded (by sessions_yield, or with work outstanding) leaves its note in the transcript. */
export function isYielded(sql: SqlStorage, row: RunRow): boolean {
  return row.status === "ok" && hasMessage(sql, yieldNoteId(row.runId));
}

/** The session's latest run, if it yielded and nothing came after it: it waits for its children. */
export function waitingRun(sql: SqlStorage): RunRow | undefined {
  const row = latestRun(sql);
  return row && isYielded(sql, row) ? row : undefined;
}

/** OpenClaw's bounds on a wait item's label and error. */
const ITEM_LABEL_CHARS = 80;
const ITEM_ERROR_CHARS = 120;

/**
 * The run that carries a yielded run's work on: the first later run that did not yield in turn (a run
 * after it, such as a late completion's, is not this task's), else the last of those that did. A run a
 * steer replaced is passed over: its replacement carries the work on.
 */
function carrierOf(sql: SqlStorage, row: RunRow): RunRow | undefined {
  let last: RunRow | undefined;
  for (let next = nextRun(sql, row.seq); next; next = nextRun(sql, next.seq)) {
    if (next.error === RESTARTED_BY_STEER) continue;
    if (!isYielded(sql, next)) return next;
    last = next;
  }
  return last;
}

/**
 * A run's progress. A yielded run waits for its children: the session's later run (started by a
 * completion) carries the work on, so that run's state and end are reported under this runId.
 */
export function runProgress(sql: SqlStorage, record: SessionRecord, runId: string): RunProgress | undefined {
  const row = findRun(sql, runId);
  if (!row) return undefined;
  const current = isYielded(sql, row) ? carrierOf(sql, row) : row;
  const label = (record.label ?? record.spawn?.label ?? record.spawn?.task ?? record.sessionKey).slice(
    0,
    ITEM_LABEL_CHARS,
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
    status: STATUS_OF_ENDING[current.status],
    outcome: {
      status: current.status,
      ...(current.error !== undefined ? { error: current.error.slice(0, ITEM_ERROR_CHARS) } : {}),
    },
    ...(current.endedAt !== undefined ? { endedAt: current.endedAt } : {}),
  };
}
