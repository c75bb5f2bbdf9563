import type {
  AdmittedCollector,
  CollectorAdmission,
  CollectorOutcome,
  CollectorResult,
  CollectorSnapshot,
  CollectorStatus,
} from "../api";
import { addToOutbox, entriesOfKind } from "./outbox-store";

/**
 * The requester's `collector` table (SPEC §15): admission under the group caps, the FIFO of members
 * waiting for a running slot, their results. Every function runs inside the caller's transaction, so
 * counting and admitting are one step: two spawns at once can never both take the last slot.
 */

/** Results stay readable this long after they arrive (then the alarm prunes them). */
export const COLLECTOR_KEEP_MS = 7 * 24 * 60 * 60 * 1000;

type CollectorRow = {
  run_id: string;
  group_id: string;
  child_key: string;
  label: string | null;
  state: "queued" | "running" | "ended";
  status: CollectorStatus | null;
  result: string | null;
  structured: string | null;
  error: string | null;
  schema_error: string | null;
  usage: string | null;
  completed_seq: number | null;
  ended_at: number | null;
};

/** The outbox key of what a member's child is owed (its run released, or killed): one per run. */
const releaseKey = (runId: string) => `collector_release:${runId}`;

/** How long the requester keeps trying to reach a member's child (the delivery schedule's deadline). */
export const RELEASE_DEADLINE_MS = 30 * 60 * 1000;

/**
 * How long after admitting a member straight into a running slot its release is first tried: the spawn
 * is creating its child (runnable) meanwhile, and the release is only the record that the child is owed.
 */
export const ADMITTED_RELEASE_DELAY_MS = 5000;

/**
 * Owes a member's child its held run's release (or, with `kill`, its end), through the outbox, first
 * tried at `firstAttemptAt`.
 */
export function oweChild(
  sql: SqlStorage,
  row: { run_id: string; child_key: string },
  now: number,
  kill = false,
  firstAttemptAt = now,
): void {
  addToOutbox(
    sql,
    "collector_release",
    releaseKey(row.run_id),
    {
      runId: row.run_id,
      childKey: row.child_key,
      deadlineAt: now + RELEASE_DEADLINE_MS,
      ...(kill ? { kill: true as const } : {}),
    },
    firstAttemptAt,
  );
}

/** A group's members: ever admitted (table collector_admitted, never pruned), live, running. */
function groupCounts(sql: SqlStorage, groupId: string) {
  return sql
    .exec<{ total: number; live: number; running: number }>(
      `SELECT COALESCE((SELECT admitted FROM collector_admitted WHERE group_id = ?1), 0) AS total,
         COALESCE(SUM(state != 'ended'), 0) AS live, COALESCE(SUM(state = 'running'), 0) AS running
       FROM collector WHERE group_id = ?1`,
      groupId,
    )
    .one();
}

/**
 * A session created again over storage not wiped yet: the children its old members are still owed
 * something are owed their kill instead (those members are forgotten, so a held run must never start).
 */
export function killOwedChildren(sql: SqlStorage, now: number): void {
  for (const { payload } of entriesOfKind(sql, "collector_release"))
    oweChild(sql, { run_id: payload.runId, child_key: payload.childKey }, now, true);
}

/** Forgets every member and group (a session created anew on this key starts with none). */
export function clearCollectors(sql: SqlStorage): void {
  sql.exec("DELETE FROM collector");
  sql.exec("DELETE FROM collector_admitted");
}

/**
 * Starts the oldest queued members of a group while it has running slots free: their children's held
 * runs are released through the outbox. `admitted`'s child is being created runnable by its spawn; its
 * release, tried a little later, is the durable record that the child is owed at all: a spawn cut before
 * creating it leaves a release that fails at its deadline, freeing the slot. The runIds started.
 */
function startQueued(
  sql: SqlStorage,
  groupId: string,
  maxConcurrent: number,
  now: number,
  admitted?: string,
): string[] {
  const free = maxConcurrent - groupCounts(sql, groupId).running;
  if (free <= 0) return [];
  const started = sql
    .exec<{ run_id: string; child_key: string }>(
      `UPDATE collector SET state = 'running', started_at = ?
       WHERE seq IN (SELECT seq FROM collector WHERE group_id = ? AND state = 'queued' ORDER BY seq LIMIT ?)
       RETURNING run_id, child_key`,
      now,
      groupId,
      free,
    )
    .toArray();
  for (const row of started)
    oweChild(sql, row, now, false, row.run_id === admitted ? now + ADMITTED_RELEASE_DELAY_MS : now);
  return started.map((row) => row.run_id);
}

/**
 * Admits a member, or says which cap refuses it (lifetime total first, then live members). A runId
 * admitted before answers as it stands and writes nothing. A member beyond maxConcurrent waits queued.
 */
export function admitCollector(
  sql: SqlStorage,
  admission: CollectorAdmission,
  now: number,
): AdmittedCollector | { refused: string } {
  const existing = sql
    .exec<{ state: AdmittedCollector["state"] }>(
      "SELECT state FROM collector WHERE run_id = ?",
      admission.runId,
    )
    .toArray()[0];
  if (existing) return { state: existing.state, duplicate: true };
  const { caps, groupId } = admission;
  const counts = groupCounts(sql, groupId);
  if (counts.total >= caps.maxTotalPerGroup)
    return {
      refused: `sessions_spawn reached tools.swarm.maxTotalPerGroup (${counts.total}/${caps.maxTotalPerGroup}).`,
    };
  if (counts.live >= caps.maxChildrenPerGroup)
    return {
      refused: `sessions_spawn reached tools.swarm.maxChildrenPerGroup (${counts.live}/${caps.maxChildrenPerGroup}).`,
    };
  sql.exec(
    `INSERT INTO collector (run_id, group_id, child_key, label, state, max_concurrent, created_at)
     VALUES (?, ?, ?, ?, 'queued', ?, ?)`,
    admission.runId,
    groupId,
    admission.childKey,
    admission.label ?? null,
    caps.maxConcurrent,
    now,
  );
  sql.exec(
    `INSERT INTO collector_admitted (group_id, admitted) VALUES (?, 1)
     ON CONFLICT (group_id) DO UPDATE SET admitted = admitted + 1`,
    groupId,
  );
  const started = startQueued(sql, groupId, caps.maxConcurrent, now, admission.runId);
  return { state: started.includes(admission.runId) ? "running" : "queued", duplicate: false };
}

/**
 * Takes a member's result once (a redelivery, or a result for a run never admitted here, is not taken)
 * and frees its slot: the group's next queued members start. True when taken.
 */
export function takeCollectorResult(sql: SqlStorage, result: CollectorResult, now: number): boolean {
  const ended = sql
    .exec<{ group_id: string; max_concurrent: number }>(
      `UPDATE collector SET state = 'ended', status = ?, result = ?, structured = ?, error = ?,
         schema_error = ?, usage = ?, ended_at = ?,
         completed_seq = (SELECT COALESCE(MAX(completed_seq), 0) + 1 FROM collector)
       WHERE run_id = ? AND state != 'ended' RETURNING group_id, max_concurrent`,
      result.status,
      result.result,
      result.structured === undefined ? null : JSON.stringify(result.structured),
      result.error ?? null,
      result.schemaError ?? null,
      result.usage ? JSON.stringify(result.usage) : null,
      now,
      result.runId,
    )
    .toArray()[0];
  if (!ended) return false;
  startQueued(sql, ended.group_id, ended.max_concurrent, now);
  return true;
}

/**
 * Ends queued members before they start (all of them, or those of `runIds`): killed, with nothing to
 * collect; their children's held runs are killed through the outbox (their reports then change nothing).
 * Running members end through their child's kill. The runIds ended.
 */
export function cancelQueuedCollectors(sql: SqlStorage, now: number, runIds?: readonly string[]): string[] {
  const cancelled = sql
    .exec<{ run_id: string; child_key: string }>(
      `UPDATE collector SET state = 'ended', status = 'killed', result = '', error = 'run killed',
         ended_at = ?, completed_seq = (SELECT COALESCE(MAX(completed_seq), 0) + 1 FROM collector)
       WHERE state = 'queued' AND (? IS NULL OR run_id IN (SELECT value FROM json_each(?)))
       RETURNING run_id, child_key`,
      now,
      runIds ? 1 : null,
      JSON.stringify(runIds ?? []),
    )
    .toArray();
  for (const row of cancelled) oweChild(sql, row, now, true);
  return cancelled.map((row) => row.run_id);
}

/** Whether a member has ended (a release owed to its child is then moot). */
export function collectorEnded(sql: SqlStorage, runId: string): boolean {
  return sql.exec("SELECT 1 FROM collector WHERE run_id = ? AND state = 'ended'", runId).toArray().length > 0;
}

/** Ends a member its child could not be reached for (its release's deadline passed): failed. */
export function failCollector(sql: SqlStorage, runId: string, error: string, now: number): boolean {
  return takeCollectorResult(sql, { runId, status: "failed", result: "", error }, now);
}

function outcomeOf(row: CollectorRow): CollectorOutcome {
  return {
    runId: row.run_id,
    status: row.status ?? "failed",
    result: row.result ?? "",
    ...(row.structured !== null ? { structured: JSON.parse(row.structured) } : {}),
    ...(row.error !== null ? { error: row.error } : {}),
    ...(row.schema_error !== null ? { schemaError: row.schema_error } : {}),
    sessionKey: row.child_key,
    ...(row.label !== null ? { label: row.label } : {}),
    ...(row.usage !== null ? { usage: JSON.parse(row.usage) } : {}),
    endedAt: row.ended_at ?? 0,
    completedSeq: row.completed_seq ?? 0,
  };
}

/** The requested members as they stand: ended ones in arrival order, then pending and unknown ids. */
export function collectorSnapshot(sql: SqlStorage, runIds: readonly string[]): CollectorSnapshot {
  const rows = sql
    .exec<CollectorRow>(
      `SELECT run_id, group_id, child_key, label, state, status, result, structured, error, schema_error, usage,
         completed_seq, ended_at FROM collector WHERE run_id IN (SELECT value FROM json_each(?))
       ORDER BY completed_seq`,
      JSON.stringify(runIds),
    )
    .toArray();
  const found = new Map(rows.map((row) => [row.run_id, row]));
  return {
    completed: rows.filter((row) => row.state === "ended").map(outcomeOf),
    pending: runIds.filter((runId) => found.has(runId) && found.get(runId)?.state !== "ended"),
    unknown: runIds.filter((runId) => !found.has(runId)),
  };
}

/** Drops results kept longer than COLLECTOR_KEEP_MS (due work of the alarm). */
export function pruneCollectors(sql: SqlStorage, now: number): void {
  sql.exec("DELETE FROM collector WHERE ended_at IS NOT NULL AND ended_at < ?", now - COLLECTOR_KEEP_MS);
}

/** Erasure: the results these (erased) children reported here keep their status, not their text. */
export function eraseCollectorResults(sql: SqlStorage, childKeys: readonly string[], erased: string): number {
  return sql.exec(
    `UPDATE collector SET result = ?, structured = NULL WHERE result IS NOT NULL AND result NOT IN ('', ?)
       AND child_key IN (SELECT value FROM json_each(?))`,
    erased,
    erased,
    JSON.stringify(childKeys),
  ).rowsWritten;
}
