import {
  notFound,
  type Result,
  type RetireAnswer,
  type RetireRequest,
  type SessionGuard,
  type SessionPatch,
} from "../api";
import { liveRecord, type RecordChanges, type SessionRecord, updateRecord } from "../record/record";
import { appendEvent, systemEvent } from "../store/event-log";
import { addIndexSync } from "../store/outbox-store";
import { hasQueuedRuns, runningRuns } from "../store/run-store";

/**
 * `archiveAt` of an archive the `sessions` tool scheduled for the end of the run in flight: due (in the
 * `due_work` view) once no run is queued or running, then taken by the alarm (writes.ts archiveIfDue);
 * kept by a run's end, which otherwise sets a sub-agent's own archiving time.
 */
export const ARCHIVE_WHEN_IDLE = 0;

/**
 * The live record a lifecycle change (patch, remove) applies to, or why not: no session, or a guard that
 * names another generation of it (the key was re-created).
 */
export function guardedRecord(sql: SqlStorage, guard: SessionGuard | undefined): Result<SessionRecord> {
  const record = liveRecord(sql);
  if (!record) return notFound();
  if (guard?.expectedSessionId === undefined || guard.expectedSessionId === record.sessionId)
    return { ok: true, value: record };
  return {
    ok: false,
    code: "conflict",
    message: `Session ${record.sessionKey} changed before patch. Retry.`,
  };
}

/** Writes a patch (call inside a transaction): the fields as given, pinning and archiving as record fields. */
export function writePatch(sql: SqlStorage, changes: SessionPatch, now: number): void {
  const { archived, pinned, ...fields } = changes;
  const wasArchived = liveRecord(sql)?.archivedAt !== undefined;
  const archiving = archiveChanges(sql, archived, now);
  updateRecord(sql, {
    ...fields,
    // A new model choice is what the status card names until a run of it answers.
    ...(fields.modelOverride !== undefined ? { answeredModel: null } : {}),
    ...(pinned !== undefined ? { pinned: pinned ? 1 : 0 } : {}),
    ...archiving,
  });
  const patched = Object.keys(changes).filter((field) => field !== "archived");
  if (patched.length > 0)
    appendEvent(
      sql,
      systemEvent("patched", `patched ${patched.join(", ")}`, { data: { fields: patched } }),
      now,
    );
  if (typeof archiving.archivedAt === "number" && !wasArchived)
    appendEvent(sql, systemEvent("archived", "archived"), now);
  if (archiving.archivedAt === null && wasArchived)
    appendEvent(sql, systemEvent("restored", "restored"), now);
  addIndexSync(sql);
}

function archiveChanges(sql: SqlStorage, archived: SessionPatch["archived"], now: number): RecordChanges {
  if (archived === undefined) return {};
  // Listed again, and no archiving pending: the caller asked for it back.
  if (archived === false) return { archivedAt: null, archiveAt: null };
  const busy = hasQueuedRuns(sql) || runningRuns(sql).length > 0;
  if (archived === "after_run" && busy) return { archiveAt: ARCHIVE_WHEN_IDLE };
  return { archivedAt: now, archiveAt: null };
}

/** Why the maintenance pass may not archive or delete this session now (SPEC §23), if it may not. */
export function retireRefusal(
  sql: SqlStorage,
  record: SessionRecord,
  request: RetireRequest,
): Extract<RetireAnswer, { retired: false }>["reason"] | undefined {
  if (record.updatedAt >= request.idleBefore) return "active";
  if (runningRuns(sql).length > 0 || hasQueuedRuns(sql)) return "run_in_flight";
  if (request.action === "archive" && record.archivedAt !== undefined) return "archived";
  return undefined;
}

/**
 * Binds a child to the session of its parent that spawned it (SPEC §23 "Generations"), once: its index
 * row then carries `spawned_by_id`, and the parent's key created again lists it no more.
 */
export function bindToParent(sql: SqlStorage, parentSessionId: string): void {
  const record = liveRecord(sql);
  if (!record?.spawnedBy || record.spawnedById !== undefined) return;
  updateRecord(sql, { spawnedById: parentSessionId });
  addIndexSync(sql);
}
