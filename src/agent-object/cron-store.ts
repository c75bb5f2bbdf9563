import type { CronJob, CronRun, JobDefinition } from "../cron/job-schema";

/** SPEC §22: the runs kept per job. */
export const RUNS_KEPT_PER_JOB = 50;

/** A job row as stored (src/agent-object/agent-schema.ts, 0002_cron). */
export interface JobRow {
  definition: JobDefinition;
  source: "config" | "api";
  createdAt: number;
  nextRunAt?: number;
  dueAt?: number;
  lastRunAt?: number;
  failures: number;
}

type JobColumns = {
  definition: string;
  source: string;
  created_at: number;
  next_run_at: number | null;
  due_at: number | null;
  last_run_at: number | null;
  failures: number;
};

const JOB_COLUMNS = "definition, source, created_at, next_run_at, due_at, last_run_at, failures";

function jobRow(columns: JobColumns): JobRow {
  return {
    definition: JSON.parse(columns.definition) as JobDefinition,
    source: columns.source === "config" ? "config" : "api",
    createdAt: columns.created_at,
    failures: columns.failures,
    ...(columns.next_run_at !== null ? { nextRunAt: columns.next_run_at } : {}),
    ...(columns.due_at !== null ? { dueAt: columns.due_at } : {}),
    ...(columns.last_run_at !== null ? { lastRunAt: columns.last_run_at } : {}),
  };
}

/** A job as answered: its definition, source and times (`nextRunAt` null when it will not run). */
export function jobAnswer(row: JobRow): CronJob {
  return {
    ...row.definition,
    source: row.source,
    createdAt: row.createdAt,
    nextRunAt: row.definition.enabled ? (row.dueAt ?? null) : null,
    ...(row.lastRunAt !== undefined ? { lastRunAt: row.lastRunAt } : {}),
  };
}

/** One job, or undefined. */
export function readJob(sql: SqlStorage, jobId: string): JobRow | undefined {
  const row = sql
    .exec<JobColumns>(`SELECT ${JOB_COLUMNS} FROM cron_job WHERE job_id = ?`, jobId)
    .toArray()[0];
  return row ? jobRow(row) : undefined;
}

/** Every job, oldest first. */
export function listJobs(sql: SqlStorage): JobRow[] {
  return sql
    .exec<JobColumns>(`SELECT ${JOB_COLUMNS} FROM cron_job ORDER BY created_at, job_id`)
    .toArray()
    .map(jobRow);
}

/** How many jobs the agent has. */
export function countJobs(sql: SqlStorage): number {
  return sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM cron_job").one().n;
}

/** Writes a job (insert or replace), its schedule state as given. */
export function writeJob(sql: SqlStorage, row: JobRow): void {
  sql.exec(
    `INSERT INTO cron_job (job_id, ${JOB_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (job_id) DO UPDATE SET definition = excluded.definition, source = excluded.source,
       next_run_at = excluded.next_run_at, due_at = excluded.due_at, last_run_at = excluded.last_run_at,
       failures = excluded.failures`,
    row.definition.jobId,
    JSON.stringify(row.definition),
    row.source,
    row.createdAt,
    row.nextRunAt ?? null,
    row.dueAt ?? null,
    row.lastRunAt ?? null,
    row.failures,
  );
}

/** Removes a job and its runs' history. */
export function deleteJob(sql: SqlStorage, jobId: string): boolean {
  const removed = sql.exec("DELETE FROM cron_job WHERE job_id = ?", jobId).rowsWritten > 0;
  sql.exec("DELETE FROM cron_run WHERE job_id = ?", jobId);
  return removed;
}

/** The enabled jobs due by `now`. */
export function dueJobs(sql: SqlStorage, now: number): JobRow[] {
  return listJobs(sql).filter((row) => row.definition.enabled && row.dueAt !== undefined && row.dueAt <= now);
}

/** A run row as stored. */
export interface RunRow extends CronRun {
  jobId: string;
  dispatchAt?: number;
  deliveryId?: string;
}

type RunColumns = {
  run_id: string;
  job_id: string;
  scheduled_at: number;
  session_key: string;
  status: string;
  dispatch_at: number | null;
  started_at: number | null;
  ended_at: number | null;
  duration_ms: number | null;
  delivery_status: string | null;
  delivery_id: string | null;
  error: string | null;
};

function runRow(columns: RunColumns): RunRow {
  const optional = (value: number | string | null) => (value === null ? undefined : value);
  const entries = {
    startedAt: optional(columns.started_at),
    endedAt: optional(columns.ended_at),
    durationMs: optional(columns.duration_ms),
    deliveryStatus: optional(columns.delivery_status),
    deliveryId: optional(columns.delivery_id),
    error: optional(columns.error),
    dispatchAt: optional(columns.dispatch_at),
  };
  return {
    runId: columns.run_id,
    jobId: columns.job_id,
    sessionKey: columns.session_key,
    scheduledAt: columns.scheduled_at,
    // A slot taken but not yet accepted by its target reads as running: it is about to.
    status: columns.status === "pending" ? "running" : (columns.status as CronRun["status"]),
    ...Object.fromEntries(Object.entries(entries).filter(([, value]) => value !== undefined)),
  } as RunRow;
}

/**
 * Takes a slot: its run row, pending until the target accepts it. False when the slot was taken before
 * (the unique job and scheduled time): a slot runs once.
 */
export function takeSlot(
  sql: SqlStorage,
  slot: { runId: string; jobId: string; scheduledAt: number; sessionKey: string },
  now: number,
): boolean {
  const taken =
    sql.exec(
      `INSERT OR IGNORE INTO cron_run (run_id, job_id, scheduled_at, session_key, status, dispatch_at)
       VALUES (?, ?, ?, ?, 'pending', ?)`,
      slot.runId,
      slot.jobId,
      slot.scheduledAt,
      slot.sessionKey,
      now,
    ).rowsWritten > 0;
  // The oldest runs beyond what is kept go (never one still in flight).
  sql.exec(
    `DELETE FROM cron_run WHERE job_id = ? AND status NOT IN ('pending', 'running') AND run_id NOT IN
       (SELECT run_id FROM cron_run WHERE job_id = ? ORDER BY scheduled_at DESC LIMIT ?)`,
    slot.jobId,
    slot.jobId,
    RUNS_KEPT_PER_JOB,
  );
  return taken;
}

const RUN_SELECT =
  "SELECT run_id, job_id, scheduled_at, session_key, status, dispatch_at, started_at, ended_at, duration_ms, delivery_status, delivery_id, error FROM cron_run";

/** The slots taken whose target has not accepted them yet, due for a (re)try by `now`. */
export function pendingRuns(sql: SqlStorage, now: number): RunRow[] {
  return sql
    .exec<RunColumns>(
      `${RUN_SELECT} WHERE status = 'pending' AND dispatch_at <= ? ORDER BY scheduled_at`,
      now,
    )
    .toArray()
    .map(runRow);
}

/** One run. */
export function readRun(sql: SqlStorage, runId: string): RunRow | undefined {
  const row = sql.exec<RunColumns>(`${RUN_SELECT} WHERE run_id = ?`, runId).toArray()[0];
  return row ? runRow(row) : undefined;
}

/** A job's runs, newest first. */
export function listRuns(sql: SqlStorage, jobId: string): RunRow[] {
  return sql
    .exec<RunColumns>(`${RUN_SELECT} WHERE job_id = ? ORDER BY scheduled_at DESC`, jobId)
    .toArray()
    .map(runRow);
}

/** The target accepted the slot's run: it is running (or queued) there. */
export function markAccepted(sql: SqlStorage, runId: string, now: number): void {
  sql.exec(
    "UPDATE cron_run SET status = 'running', dispatch_at = NULL, started_at = COALESCE(started_at, ?) WHERE run_id = ? AND status = 'pending'",
    now,
    runId,
  );
}

/** The target could not be asked: tried again at `retryAt`. */
export function deferDispatch(sql: SqlStorage, runId: string, retryAt: number, error: string): void {
  sql.exec(
    "UPDATE cron_run SET dispatch_at = ?, error = ? WHERE run_id = ? AND status = 'pending'",
    retryAt,
    error.slice(0, 500),
    runId,
  );
}

/** A run's end, once: false when it had ended already (a repeated report). */
export function markEnded(
  sql: SqlStorage,
  runId: string,
  end: {
    status: CronRun["status"];
    startedAt?: number;
    endedAt: number;
    deliveryStatus?: string;
    deliveryId?: string;
    error?: string;
  },
): boolean {
  return (
    sql.exec(
      `UPDATE cron_run SET status = ?, dispatch_at = NULL, started_at = COALESCE(?, started_at), ended_at = ?,
         duration_ms = ? - COALESCE(?, started_at, ?), delivery_status = ?, delivery_id = ?, error = ?
       WHERE run_id = ? AND status IN ('pending', 'running')`,
      end.status,
      end.startedAt ?? null,
      end.endedAt,
      end.endedAt,
      end.startedAt ?? null,
      end.endedAt,
      end.deliveryStatus ?? null,
      end.deliveryId ?? null,
      end.error?.slice(0, 500) ?? null,
      runId,
    ).rowsWritten > 0
  );
}

/** A run's delivery moved on (read back from its session's ledger). */
export function setDeliveryStatus(sql: SqlStorage, runId: string, status: string): void {
  sql.exec("UPDATE cron_run SET delivery_status = ? WHERE run_id = ?", status, runId);
}

/** An isolated run session is deleted at `deleteAt` (cron.sessionRetention after its run ended). */
export function scheduleCleanup(sql: SqlStorage, sessionKey: string, deleteAt: number): void {
  sql.exec(
    "INSERT INTO cron_cleanup (session_key, delete_at) VALUES (?, ?) ON CONFLICT (session_key) DO UPDATE SET delete_at = excluded.delete_at",
    sessionKey,
    deleteAt,
  );
}

/** The run sessions due for deletion by `now`. */
export function dueCleanups(sql: SqlStorage, now: number): string[] {
  return sql
    .exec<{ session_key: string }>("SELECT session_key FROM cron_cleanup WHERE delete_at <= ?", now)
    .toArray()
    .map((row) => row.session_key);
}

/** A run session was deleted. */
export function cleanupDone(sql: SqlStorage, sessionKey: string): void {
  sql.exec("DELETE FROM cron_cleanup WHERE session_key = ?", sessionKey);
}

/** The earliest time anything here is due: the one alarm's time (undefined: nothing is). */
export function nextWakeAt(sql: SqlStorage): number | undefined {
  const row = sql
    .exec<{ at: number | null }>(
      `SELECT MIN(at) AS at FROM (
         SELECT MIN(due_at) AS at FROM cron_job WHERE due_at IS NOT NULL AND json_extract(definition, '$.enabled')
         UNION ALL SELECT MIN(dispatch_at) FROM cron_run WHERE status = 'pending'
         UNION ALL SELECT MIN(delete_at) FROM cron_cleanup
         UNION ALL SELECT CAST(value AS INTEGER) FROM cron_meta WHERE key = 'maintenance_at')`,
    )
    .one();
  return row.at ?? undefined;
}

/** A value of `cron_meta` (the agent's id, the configured jobs last taken, the next maintenance pass). */
export function readMeta(sql: SqlStorage, key: string): string | undefined {
  return sql.exec<{ value: string }>("SELECT value FROM cron_meta WHERE key = ?", key).toArray()[0]?.value;
}

/** Sets a value of `cron_meta`. */
export function writeMeta(sql: SqlStorage, key: string, value: string): void {
  sql.exec(
    "INSERT INTO cron_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    key,
    value,
  );
}
