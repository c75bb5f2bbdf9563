import { DurableObject } from "cloudflare:workers";
import type { CronJob, CronRun, JobDefinition } from "../cron/job-schema";
import type { CronRunReport } from "../cron/run-report";
import { runDailyMaintenance } from "../maintenance/daily";
import { type AgentMaintenance, type MaintenanceMode, runMaintenance } from "../maintenance/run-maintenance";
import { applyAgentMigrations } from "./agent-schema";
import { type CronResult, CronScheduler } from "./scheduler";
import { type DailySpend, type UsageReport, utcDayBefore } from "./spend";

/** A run's usage is kept this many days for deduplication (its session's outbox gives up long before). */
const RUN_USAGE_DAYS = 3;
/** A day's totals are kept this long (the status card reads today's only). */
const DAY_SPEND_DAYS = 35;

/**
 * One object per agent (`AGENT.getByName(agentId)`): what is counted for the agent as a whole, exactly,
 * in one place. Today its daily spend (SPEC §20 budgets), from each ended run's usage, reported once per
 * run by the run's session; and its schedules (SPEC §22, src/agent-object/scheduler.ts), whose next due
 * work the object's one alarm is set for.
 */
export class AgentObject extends DurableObject<Env> {
  readonly #cron: CronScheduler;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.blockConcurrencyWhile(async () => applyAgentMigrations(ctx.storage.sql));
    // The daily maintenance pass (SPEC §23) runs from the scheduler's alarm, handed in as a function.
    this.#cron = new CronScheduler(
      ctx.storage,
      () => this.env,
      (agentId) => runDailyMaintenance(this.env, agentId),
    );
  }

  override async alarm(): Promise<void> {
    await this.#cron.alarm();
  }

  /** Takes the agent's configured jobs (on a configuration change; the Worker wakes each agent with some). */
  async cronSync(agentId: string): Promise<void> {
    await this.#cron.sync(agentId);
  }

  /** The Worker's daily cron: the maintenance pass unless the alarm (or a cron) made it lately. */
  async maintenanceDaily(agentId: string): Promise<boolean> {
    return this.#cron.dailyPass(agentId);
  }

  /**
   * The agent's maintenance report, with `enforce` one batch of its policy (`POST /v1/maintenance`): run
   * here, each agent's in an invocation of its own, so a call over many agents never meets D1's 1,000
   * queries per invocation.
   */
  async maintenance(agentId: string, mode: MaintenanceMode): Promise<AgentMaintenance> {
    return runMaintenance(this.env, agentId, mode);
  }

  /** The agent's jobs. */
  async cronList(agentId: string): Promise<CronJob[]> {
    return this.#cron.list(agentId);
  }

  /** One job. */
  async cronGet(agentId: string, jobId: string): Promise<CronResult<CronJob>> {
    return this.#cron.get(agentId, jobId);
  }

  /** Adds a job checked against the configuration. */
  async cronAdd(job: JobDefinition): Promise<CronResult<CronJob>> {
    return this.#cron.add(job);
  }

  /** Replaces a job's definition (a patch applied and checked by the caller). */
  async cronReplace(job: JobDefinition): Promise<CronResult<CronJob>> {
    return this.#cron.replace(job);
  }

  /** Removes a job. */
  async cronRemove(agentId: string, jobId: string): Promise<CronResult<{ removed: true }>> {
    return this.#cron.remove(agentId, jobId);
  }

  /** Fires a job now. */
  async cronRun(agentId: string, jobId: string): Promise<CronResult<{ runId: string }>> {
    return this.#cron.runNow(agentId, jobId);
  }

  /** A job's last runs. */
  async cronRuns(agentId: string, jobId: string): Promise<CronResult<CronRun[]>> {
    return this.#cron.runs(agentId, jobId);
  }

  /** A cron run's end, from its target session's outbox (taken once per runId). */
  async cronRunEnded(report: CronRunReport): Promise<void> {
    await this.#cron.runEnded(report);
  }

  get #sql(): SqlStorage {
    return this.ctx.storage.sql;
  }

  /** The agent's spend on a UTC day (`YYYY-MM-DD`): zeros for a day with none. */
  spend(day: string): DailySpend {
    const row = this.#sql
      .exec<{ tokens: number; cost_usd: number; runs: number }>(
        "SELECT tokens, cost_usd, runs FROM day_spend WHERE day = ?",
        day,
      )
      .toArray()[0];
    return { day, tokens: row?.tokens ?? 0, costUsd: row?.cost_usd ?? 0, runs: row?.runs ?? 0 };
  }

  /**
   * Adds an ended run's usage to its day, once: a report repeated (the session's outbox retried it after
   * an eviction) changes nothing. Answers the day's spend.
   */
  recordUsage(report: UsageReport): DailySpend {
    const now = Date.now();
    this.ctx.storage.transactionSync(() => {
      const inserted = this.#sql.exec(
        "INSERT OR IGNORE INTO run_usage (run_id, day, tokens, cost_usd, recorded_at) VALUES (?, ?, ?, ?, ?)",
        report.runId,
        report.day,
        report.tokens,
        report.costUsd,
        now,
      ).rowsWritten;
      if (inserted > 0)
        this.#sql.exec(
          `INSERT INTO day_spend (day, tokens, cost_usd, runs) VALUES (?, ?, ?, 1)
           ON CONFLICT (day) DO UPDATE SET tokens = tokens + excluded.tokens,
             cost_usd = cost_usd + excluded.cost_usd, runs = runs + 1`,
          report.day,
          report.tokens,
          report.costUsd,
        );
      this.#sql.exec("DELETE FROM run_usage WHERE day < ?", utcDayBefore(now, RUN_USAGE_DAYS));
      this.#sql.exec("DELETE FROM day_spend WHERE day < ?", utcDayBefore(now, DAY_SPEND_DAYS));
    });
    return this.spend(report.day);
  }
}
