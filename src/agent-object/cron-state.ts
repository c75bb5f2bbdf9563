import type { CronRun, JobDefinition } from "../cron/job-schema";
import { nextSlot } from "../cron/next-run";
import { deleteJob, type JobRow, markEnded, readJob, readRun, scheduleCleanup, writeJob } from "./cron-store";

/** SPEC §22 (OpenClaw): a job whose runs keep failing waits this long after each failure, then the last. */
export const FAILURE_BACKOFF_MS = [30_000, 60_000, 300_000, 900_000, 3_600_000] as const;

/** The wait after the `failures`-th failure in a row. */
export function backoffMs(failures: number): number {
  const index = Math.min(Math.max(failures, 1), FAILURE_BACKOFF_MS.length) - 1;
  return FAILURE_BACKOFF_MS[index] ?? 3_600_000;
}

/** A job's first slot after `now` (undefined: none left), from its anchor and the slot that ran last. */
export function firstSlotAfter(
  row: Pick<JobRow, "definition" | "createdAt">,
  now: number,
  lastSlot?: number,
) {
  return nextSlot(row.definition.schedule, now, row.createdAt, lastSlot);
}

/** A new job's row: its first slot is due (an `at` in the past is due at once). */
export function newJobRow(definition: JobDefinition, source: JobRow["source"], now: number): JobRow {
  const next = nextSlot(definition.schedule, now, now, undefined);
  return {
    definition,
    source,
    createdAt: now,
    failures: 0,
    ...(next !== undefined ? { nextRunAt: next, dueAt: next } : {}),
  };
}

/**
 * A job's definition replaced (an update, a changed configuration): a new schedule is planned from now,
 * the same one keeps its plan; its history and creation stay.
 */
export function replacedJobRow(
  current: JobRow,
  definition: JobDefinition,
  source: JobRow["source"],
  now: number,
): JobRow {
  const sameSchedule = JSON.stringify(current.definition.schedule) === JSON.stringify(definition.schedule);
  if (sameSchedule) return { ...current, definition, source };
  const next = firstSlotAfter({ definition, createdAt: current.createdAt }, now);
  const { nextRunAt: _next, dueAt: _due, ...rest } = current;
  return {
    ...rest,
    definition,
    source,
    failures: 0,
    ...(next !== undefined ? { nextRunAt: next, dueAt: next } : {}),
  };
}

/**
 * The job after its slot `scheduledAt` was taken at `now`: its next slot is the first after now, so
 * slots missed while nothing could run are caught up by this one run, never one per missed slot.
 */
export function afterSlotTaken(row: JobRow, scheduledAt: number, now: number): JobRow {
  const next = firstSlotAfter(row, Math.max(now, scheduledAt), scheduledAt);
  const { nextRunAt: _next, dueAt: _due, ...rest } = row;
  return { ...rest, lastRunAt: now, ...(next !== undefined ? { nextRunAt: next, dueAt: next } : {}) };
}

/** How a run ended, as the scheduler records it. */
export interface RunEnd {
  runId: string;
  status: Exclude<CronRun["status"], "running">;
  startedAt?: number;
  endedAt: number;
  deliveryStatus?: string;
  deliveryId?: string;
  error?: string;
}

/**
 * Records a run's end once (call inside a transaction) and moves its job on: a success returns to the
 * schedule (or removes a `deleteAfterRun` job); a failure backs off (30 s → 1 min → 5 min → 15 min → 60
 * min) unless the job has no slot left. An isolated run's session is deleted `retentionMs` after. The
 * job's definition when it ended, or undefined for a repeated report (or a run not found).
 */
export function applyRunEnd(
  sql: SqlStorage,
  end: RunEnd,
  retentionMs: number,
  now: number,
): JobDefinition | undefined {
  const run = readRun(sql, end.runId);
  if (!run || !markEnded(sql, end.runId, end)) return undefined;
  const job = readJob(sql, run.jobId);
  if (job?.definition.sessionTarget === "isolated")
    scheduleCleanup(sql, run.sessionKey, end.endedAt + retentionMs);
  if (!job) return undefined;
  if (end.status === "ok") {
    if (job.definition.deleteAfterRun) {
      deleteJob(sql, job.definition.jobId);
      return job.definition;
    }
    // Back to the schedule: a slot that passed during the backoff is not run late.
    const next =
      job.nextRunAt !== undefined && job.nextRunAt < now
        ? firstSlotAfter(job, now, job.nextRunAt)
        : job.nextRunAt;
    const { nextRunAt: _next, dueAt: _due, ...rest } = job;
    writeJob(sql, { ...rest, failures: 0, ...(next !== undefined ? { nextRunAt: next, dueAt: next } : {}) });
    return job.definition;
  }
  const failures = job.failures + 1;
  const retryAt = end.endedAt + backoffMs(failures);
  writeJob(sql, {
    ...job,
    failures,
    ...(job.nextRunAt !== undefined ? { dueAt: Math.max(job.nextRunAt, retryAt) } : {}),
  });
  return job.definition;
}
