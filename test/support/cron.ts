/**
 * Driving an agent's scheduler (SPEC §22) without the clock: its alarm is run now (runDurableObjectAlarm),
 * and "time passing" is the test moving a job's stored due time (or a dispatch retry, a cleanup) into the
 * past, as test/support/drive.ts does for sessions.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { agentApi } from "../../src/agent-object/client";
import { completeJob, type JobDefinition, type JobInput, jobInputSchema } from "../../src/cron/job-schema";

export const agentStub = (agentId: string) => env.AGENT.getByName(agentId);
export const scheduler = (agentId: string) => agentApi(env, agentId);

/** A complete job definition from input fields (parsed as the tool and REST parse them). */
export function jobDefinition(agentId: string, jobId: string, input: Record<string, unknown>): JobDefinition {
  return completeJob(jobInputSchema.parse(input) as JobInput, jobId, agentId);
}

/** Adds a job to its agent's scheduler; expects it accepted. */
export async function addJob(agentId: string, jobId: string, input: Record<string, unknown>) {
  const added = await scheduler(agentId).cronAdd(jobDefinition(agentId, jobId, input));
  expect(added.ok, JSON.stringify(added)).toBe(true);
  if (!added.ok) throw new Error(added.message);
  return added.value;
}

/** Runs the agent object's alarm now (a no-op when none is set). */
export async function runSchedulerAlarm(agentId: string): Promise<boolean> {
  return runDurableObjectAlarm(agentStub(agentId));
}

/** SQL inside the agent object (moving stored times, reading rows). */
export function inScheduler<T>(agentId: string, work: (sql: SqlStorage) => T): Promise<T> {
  return runInDurableObject(agentStub(agentId), (_instance, state) => work(state.storage.sql));
}

/** The job's slot comes due now: as if the clock had reached its due time. */
export function makeDue(agentId: string, jobId: string, at = Date.now() - 1000): Promise<void> {
  return inScheduler(agentId, (sql) => {
    sql.exec("UPDATE cron_job SET due_at = ? WHERE job_id = ?", at, jobId);
  });
}

/** The job's stored plan: its next slot, when it is due, and its failures in a row. */
export function jobPlan(agentId: string, jobId: string) {
  return inScheduler(
    agentId,
    (sql) =>
      sql
        .exec<{ next_run_at: number | null; due_at: number | null; failures: number }>(
          "SELECT next_run_at, due_at, failures FROM cron_job WHERE job_id = ?",
          jobId,
        )
        .toArray()[0],
  );
}

/** The job's runs as `runs` answers them; expects the job to exist. */
export async function jobRuns(agentId: string, jobId: string) {
  const runs = await scheduler(agentId).cronRuns(agentId, jobId);
  if (!runs.ok) throw new Error(runs.message);
  return runs.value;
}
