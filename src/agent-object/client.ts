import type { CronJob, CronRun, JobDefinition } from "../cron/job-schema";
import type { CronRunReport } from "../cron/run-report";
import type { AgentMaintenance, MaintenanceMode } from "../maintenance/run-maintenance";
import type { CronResult } from "./scheduler";
import type { DailySpend, UsageReport } from "./spend";

export type { CronResult };

/** The agent object's public face (src/agent-object/agent-object.ts). */
export interface AgentApi {
  spend(day: string): Promise<DailySpend>;
  recordUsage(report: UsageReport): Promise<DailySpend>;
  cronSync(agentId: string): Promise<void>;
  maintenanceDaily(agentId: string): Promise<boolean>;
  maintenance(agentId: string, mode: MaintenanceMode): Promise<AgentMaintenance>;
  cronList(agentId: string): Promise<CronJob[]>;
  cronGet(agentId: string, jobId: string): Promise<CronResult<CronJob>>;
  cronAdd(job: JobDefinition): Promise<CronResult<CronJob>>;
  cronReplace(job: JobDefinition): Promise<CronResult<CronJob>>;
  cronRemove(agentId: string, jobId: string): Promise<CronResult<{ removed: true }>>;
  cronRun(agentId: string, jobId: string): Promise<CronResult<{ runId: string }>>;
  cronRuns(agentId: string, jobId: string): Promise<CronResult<CronRun[]>>;
  cronRunEnded(report: CronRunReport): Promise<void>;
}

/** The agent object of an agent id. */
export function agentApi(env: Pick<Env, "AGENT">, agentId: string): AgentApi {
  return env.AGENT.getByName(agentId) as unknown as AgentApi;
}
