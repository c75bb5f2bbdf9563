import { loadConfig } from "../config/load";
import { agentApi } from "./client";

/** The `cron.jobs` configurations whose schedulers this isolate has woken (normally one). */
const woken = new Set<string>();

/**
 * Wakes the scheduler of each agent with configured `cron.jobs`, once per isolate and configuration
 * (SPEC §22): a scheduler takes its configured jobs and sets its alarm only when its object is called, so
 * after a deploy nothing would fire until something called that agent. The first request or queue batch
 * an isolate handles calls each such agent's `cronSync` in the background; the call is idempotent (a
 * scheduler whose jobs are unchanged does nothing), so isolates starting side by side are harmless. A
 * failed wake is tried again by the next request. Answers the agents it wakes now.
 */
export function wakeSchedulers(env: Env, ctx: Pick<ExecutionContext, "waitUntil">): string[] {
  const loaded = loadConfig(env);
  if (!loaded.ok) return [];
  const jobs = JSON.stringify(loaded.config.cron.jobs);
  if (woken.has(jobs)) return [];
  woken.add(jobs);
  const agentIds = [...new Set(loaded.config.cron.jobs.map((job) => job.agentId))];
  if (agentIds.length === 0) return [];
  ctx.waitUntil(
    Promise.all(agentIds.map((agentId) => agentApi(env, agentId).cronSync(agentId))).catch((cause) => {
      woken.delete(jobs);
      console.warn(`cron: waking the schedulers failed, the next request tries again: ${String(cause)}`);
    }),
  );
  return agentIds;
}
