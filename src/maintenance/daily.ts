import { type AgentMaintenance, runMaintenance } from "./run-maintenance";

/** How often each agent's scheduler object runs the pass (SPEC §23: daily). */
export const DAILY_MAINTENANCE_MS = 24 * 60 * 60_000;
/** Batches one daily pass takes at most; what is left waits for the next day (or the operator's CLI). */
const MAX_DAILY_BATCHES = 20;

/**
 * The seam for the agent object's alarm (src/agent-object, whose alarm and schedules issue 32 adds): one
 * agent's daily pass, `enforce` batch after batch until done. Not wired yet: the alarm calls this once a
 * day per agent.
 */
export async function runDailyMaintenance(env: Env, agentId: string): Promise<AgentMaintenance | undefined> {
  let last: AgentMaintenance | undefined;
  for (let batch = 0; batch < MAX_DAILY_BATCHES && last?.done !== true; batch += 1)
    last = await runMaintenance(env, agentId, "enforce");
  return last;
}
