import { loadConfig } from "../config/load";
import type { SwitchboardConfig } from "../config/schema";
import {
  type CronJob,
  type CronRun,
  completeJob,
  type JobDefinition,
  MAX_JOBS_PER_AGENT,
} from "../cron/job-schema";
import type { CronRunReport } from "../cron/run-report";
import { runTargetKey } from "../cron/targets";
import { stableUuid } from "../messaging/stable-id";
import { sessionApi } from "../session/client";
import { dispatchSlot, type Slot } from "./cron-dispatch";
import { afterSlotTaken, applyRunEnd, newJobRow, type RunEnd, replacedJobRow } from "./cron-state";
import {
  cleanupDone,
  countJobs,
  deferDispatch,
  deleteJob,
  dueCleanups,
  dueJobs,
  jobAnswer,
  listJobs,
  listRuns,
  markAccepted,
  nextWakeAt,
  pendingRuns,
  readJob,
  readMeta,
  scheduleCleanup,
  setDeliveryStatus,
  takeSlot,
  writeJob,
  writeMeta,
} from "./cron-store";

/** A slot whose target could not be asked is tried again this much later. */
const DISPATCH_RETRY_MS = 30_000;
/** A run session whose deletion failed is tried again this much later. */
const CLEANUP_RETRY_MS = 60_000;
/** SPEC §23: each agent's maintenance pass runs once a day. */
export const MAINTENANCE_EVERY_MS = 24 * 60 * 60_000;
/** A pass that failed is tried again this much later. */
const MAINTENANCE_RETRY_MS = 60 * 60_000;
/**
 * The Worker's daily cron (src/index.ts `scheduled`) skips an agent whose pass ran less than this long
 * ago: the cron and the alarm never both make the day's pass, and a cron moved by a few hours still runs.
 */
export const MAINTENANCE_MIN_GAP_MS = 20 * 60 * 60_000;

/**
 * The agent's daily maintenance pass (src/maintenance/daily.ts), handed in by the AgentObject so this
 * room imports no index or maintenance code.
 */
export type DailyPass = (agentId: string) => Promise<unknown>;

/** A scheduler call's outcome: the value, or why not, with the field at fault where there is one. */
export type CronResult<T> =
  | { ok: true; value: T }
  | { ok: false; code: "bad_request" | "not_found" | "conflict"; message: string };

const notFound = (jobId: string): CronResult<never> => ({
  ok: false,
  code: "not_found",
  message: `no job "${jobId}"`,
});

/**
 * SPEC §22's scheduler: one per agent, inside its AgentObject, with the object's one alarm set for its
 * next due work (a job's slot, a dispatch to retry, a run session to delete, the daily maintenance pass). A slot is taken (its run
 * row, unique per job and time) before its target is asked, and the target takes the slot's runId once,
 * so a slot runs exactly once whatever is evicted or restarted in between.
 */
export class CronScheduler {
  readonly #storage: DurableObjectStorage;
  readonly #bindings: () => Env;
  readonly #daily: DailyPass | undefined;
  #passing: Promise<boolean> | undefined;

  /** `bindings` are read at each call, not kept (a test wraps one instance's to inject faults). */
  constructor(storage: DurableObjectStorage, bindings: () => Env, daily?: DailyPass) {
    this.#storage = storage;
    this.#bindings = bindings;
    this.#daily = daily;
  }

  get #sql(): SqlStorage {
    return this.#storage.sql;
  }

  #config(): SwitchboardConfig {
    const loaded = loadConfig(this.#bindings());
    if (!loaded.ok) throw new Error(loaded.error);
    return loaded.config;
  }

  /**
   * Notes the agent and takes its `cron.jobs` from the configuration when they changed since: a job the
   * file no longer has is removed, a changed one replaced (its plan kept if its schedule is the same).
   */
  async sync(agentId: string): Promise<void> {
    const config = this.#config();
    const wanted = config.cron.jobs
      .filter((job) => job.agentId === agentId)
      .map((job) => completeJob(job, job.jobId, agentId));
    const text = JSON.stringify(wanted);
    if (this.#daily && readMeta(this.#sql, "maintenance_at") === undefined) {
      // The first day's pass a day after the object first knows its agent; then daily from each pass.
      writeMeta(this.#sql, "maintenance_at", String(Date.now() + MAINTENANCE_EVERY_MS));
      await this.#rearm();
    }
    if (readMeta(this.#sql, "agent_id") === agentId && readMeta(this.#sql, "config_jobs") === text) return;
    const now = Date.now();
    this.#storage.transactionSync(() => {
      writeMeta(this.#sql, "agent_id", agentId);
      for (const definition of wanted) {
        const current = readJob(this.#sql, definition.jobId);
        if (!current) writeJob(this.#sql, newJobRow(definition, "config", now));
        else if (
          JSON.stringify(current.definition) !== JSON.stringify(definition) ||
          current.source !== "config"
        )
          writeJob(this.#sql, replacedJobRow(current, definition, "config", now));
      }
      const ids = new Set(wanted.map((job) => job.jobId));
      for (const row of listJobs(this.#sql))
        if (row.source === "config" && !ids.has(row.definition.jobId))
          deleteJob(this.#sql, row.definition.jobId);
      writeMeta(this.#sql, "config_jobs", text);
    });
    await this.#rearm();
  }

  /** Adds a job (checked against the configuration by the caller): at most 200, ids unique. */
  async add(job: JobDefinition): Promise<CronResult<CronJob>> {
    await this.sync(job.agentId);
    if (readJob(this.#sql, job.jobId))
      return { ok: false, code: "conflict", message: `jobId: job "${job.jobId}" exists` };
    if (countJobs(this.#sql) >= MAX_JOBS_PER_AGENT)
      return {
        ok: false,
        code: "bad_request",
        message: `agentId: agent ${job.agentId} has ${MAX_JOBS_PER_AGENT} jobs, the most allowed`,
      };
    const row = newJobRow(job, "api", Date.now());
    writeJob(this.#sql, row);
    await this.#rearm();
    return { ok: true, value: jobAnswer(row) };
  }

  /** Replaces a job's definition (an update); a configured job is changed in the configuration only. */
  async replace(job: JobDefinition): Promise<CronResult<CronJob>> {
    await this.sync(job.agentId);
    const current = readJob(this.#sql, job.jobId);
    if (!current) return notFound(job.jobId);
    if (current.source === "config")
      return {
        ok: false,
        code: "conflict",
        message: `jobId: job "${job.jobId}" is configured in cron.jobs; change it there`,
      };
    const row = replacedJobRow(current, job, "api", Date.now());
    writeJob(this.#sql, row);
    await this.#rearm();
    return { ok: true, value: jobAnswer(row) };
  }

  /** Removes a job and its history; a configured one stays (the file is its source). */
  async remove(agentId: string, jobId: string): Promise<CronResult<{ removed: true }>> {
    await this.sync(agentId);
    const current = readJob(this.#sql, jobId);
    if (!current) return notFound(jobId);
    if (current.source === "config")
      return {
        ok: false,
        code: "conflict",
        message: `jobId: job "${jobId}" is configured in cron.jobs; remove it there`,
      };
    deleteJob(this.#sql, jobId);
    await this.#rearm();
    return { ok: true, value: { removed: true } };
  }

  /** The agent's jobs. */
  async list(agentId: string): Promise<CronJob[]> {
    await this.sync(agentId);
    return listJobs(this.#sql).map(jobAnswer);
  }

  /** One job, with its definition as the caller patches it. */
  async get(agentId: string, jobId: string): Promise<CronResult<CronJob>> {
    await this.sync(agentId);
    const row = readJob(this.#sql, jobId);
    return row ? { ok: true, value: jobAnswer(row) } : notFound(jobId);
  }

  /** Fires a job now (its own slot, outside its schedule): the run is handed to its target before the answer. */
  async runNow(agentId: string, jobId: string): Promise<CronResult<{ runId: string }>> {
    await this.sync(agentId);
    const row = readJob(this.#sql, jobId);
    if (!row) return notFound(jobId);
    const now = Date.now();
    const slot = await this.#slot(row.definition, now);
    if (!slot)
      return {
        ok: false,
        code: "bad_request",
        message: `sessionTarget: ${row.definition.sessionTarget} is not a session`,
      };
    this.#storage.transactionSync(() => {
      if (takeSlot(this.#sql, { ...slot, jobId: slot.job.jobId }, now))
        writeJob(this.#sql, { ...row, lastRunAt: now });
    });
    await this.#dispatchPending(now);
    await this.#rearm();
    return { ok: true, value: { runId: slot.runId } };
  }

  /** A job's last runs (50 kept), newest first, each announce's status read again from its ledger. */
  async runs(agentId: string, jobId: string): Promise<CronResult<CronRun[]>> {
    await this.sync(agentId);
    if (!readJob(this.#sql, jobId)) return notFound(jobId);
    const runs = listRuns(this.#sql, jobId);
    for (const run of runs) {
      if (run.deliveryStatus !== "pending" || !run.deliveryId) continue;
      const record = await sessionApi(this.#bindings().SESSION, run.sessionKey).delivery(run.deliveryId);
      if (!record.ok || record.value.status === "pending") continue;
      run.deliveryStatus = record.value.status;
      setDeliveryStatus(this.#sql, run.runId, record.value.status);
    }
    return { ok: true, value: runs.map(({ jobId: _job, dispatchAt: _at, deliveryId: _id, ...run }) => run) };
  }

  /** A run's end, reported by its target session's outbox: recorded once, its job moved on. */
  async runEnded(report: CronRunReport): Promise<void> {
    const { sessionKey: _key, agentId: _agent, reply: _reply, ...end } = report;
    this.#end(end);
    await this.#rearm();
  }

  /** The alarm: run sessions past their retention go, due slots are taken, taken slots handed on. */
  async alarm(): Promise<void> {
    const agentId = readMeta(this.#sql, "agent_id");
    if (agentId) await this.sync(agentId);
    const now = Date.now();
    await this.#cleanUp(now);
    await this.#takeDueSlots(now);
    await this.#dispatchPending(now);
    if (agentId) await this.#maintain(agentId, now);
    await this.#rearm();
  }

  /**
   * The Worker's daily cron for this agent (SPEC §23, src/agent-object/daily-wake.ts): the pass now,
   * even for an object nothing woke before, unless one ran within MAINTENANCE_MIN_GAP_MS (the alarm's,
   * or an earlier cron's). Answers whether it ran.
   */
  async dailyPass(agentId: string): Promise<boolean> {
    await this.sync(agentId);
    if (!this.#daily) return false;
    const last = Number(readMeta(this.#sql, "maintenance_last"));
    if (Date.now() - last < MAINTENANCE_MIN_GAP_MS) return false;
    const ran = await this.#pass(agentId);
    await this.#rearm();
    return ran;
  }

  /** The daily pass when it is due by the alarm's own clock (`maintenance_at`). */
  async #maintain(agentId: string, now: number): Promise<void> {
    const at = Number(readMeta(this.#sql, "maintenance_at"));
    if (!this.#daily || !(at <= now)) return;
    await this.#pass(agentId);
  }

  /**
   * One pass; the next due a day later (an hour, after a failure). A pass already under way (the alarm
   * and the cron arriving together: the object interleaves at each await) is joined, never doubled.
   */
  #pass(agentId: string): Promise<boolean> {
    this.#passing ??= this.#runPass(agentId).finally(() => {
      this.#passing = undefined;
    });
    return this.#passing;
  }

  async #runPass(agentId: string): Promise<boolean> {
    const started = Date.now();
    let next = started + MAINTENANCE_EVERY_MS;
    let ran = true;
    try {
      await this.#daily?.(agentId);
    } catch (error) {
      console.warn(`maintenance: agent ${agentId}'s daily pass failed, will retry: ${String(error)}`);
      next = Date.now() + MAINTENANCE_RETRY_MS;
      ran = false;
    }
    if (ran) writeMeta(this.#sql, "maintenance_last", String(started));
    writeMeta(this.#sql, "maintenance_at", String(next));
    return ran;
  }

  #end(end: RunEnd): void {
    const retention = this.#config().cron.sessionRetention;
    this.#storage.transactionSync(() => applyRunEnd(this.#sql, end, retention, Date.now()));
  }

  async #slot(job: JobDefinition, scheduledAt: number): Promise<Slot | undefined> {
    const runId = await stableUuid("cron", job.agentId, job.jobId, String(scheduledAt));
    const sessionKey = runTargetKey(job, runId, this.#config());
    return sessionKey ? { job, runId, scheduledAt, sessionKey } : undefined;
  }

  async #takeDueSlots(now: number): Promise<void> {
    for (const row of dueJobs(this.#sql, now)) {
      const scheduledAt = row.dueAt ?? now;
      const slot = await this.#slot(row.definition, scheduledAt);
      this.#storage.transactionSync(() => {
        // Another call may have taken or moved the job while the runId was made.
        const current = readJob(this.#sql, row.definition.jobId);
        if (current?.dueAt !== scheduledAt) return;
        if (slot) takeSlot(this.#sql, { ...slot, jobId: slot.job.jobId }, now);
        writeJob(this.#sql, afterSlotTaken(current, scheduledAt, now));
      });
    }
  }

  async #dispatchPending(now: number): Promise<void> {
    const config = this.#config();
    for (const run of pendingRuns(this.#sql, now)) {
      const job = readJob(this.#sql, run.jobId)?.definition;
      if (!job) {
        this.#end({ runId: run.runId, status: "error", endedAt: Date.now(), error: "the job was removed" });
        continue;
      }
      const outcome = await dispatchSlot(this.#bindings(), config, {
        job,
        runId: run.runId,
        scheduledAt: run.scheduledAt,
        sessionKey: run.sessionKey,
      });
      const at = Date.now();
      if (outcome.kind === "accepted") markAccepted(this.#sql, run.runId, at);
      else if (outcome.kind === "ended")
        this.#end({ runId: run.runId, status: "ok", startedAt: at, endedAt: at, deliveryStatus: "none" });
      else if (outcome.kind === "failed")
        this.#end({ runId: run.runId, status: "error", startedAt: at, endedAt: at, error: outcome.error });
      else {
        console.warn(`cron: job ${job.jobId} run ${run.runId} could not reach its target, will retry`);
        deferDispatch(this.#sql, run.runId, at + DISPATCH_RETRY_MS, outcome.error);
      }
    }
  }

  async #cleanUp(now: number): Promise<void> {
    for (const sessionKey of dueCleanups(this.#sql, now)) {
      const removed = await sessionApi(this.#bindings().SESSION, sessionKey)
        .remove()
        .catch(() => undefined);
      if (removed && (removed.ok || removed.code === "not_found")) cleanupDone(this.#sql, sessionKey);
      else scheduleCleanup(this.#sql, sessionKey, now + CLEANUP_RETRY_MS);
    }
  }

  async #rearm(): Promise<void> {
    const at = nextWakeAt(this.#sql);
    if (at === undefined) await this.#storage.deleteAlarm();
    else if ((await this.#storage.getAlarm()) !== at) await this.#storage.setAlarm(at);
  }
}
