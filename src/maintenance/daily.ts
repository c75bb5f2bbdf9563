import { type AgentMaintenance, runMaintenance } from "./run-maintenance";

/** Batches one daily pass takes at most; what is left waits for the next day (or the operator's CLI). */
const MAX_DAILY_BATCHES = 20;

/**
 * One agent's daily pass (SPEC §23), `enforce` batch after batch until done: run by the agent object's
 * alarm once a day (src/agent-object/scheduler.ts, `maintenance_at`), handed in by the AgentObject.
 */
export async function runDailyMaintenance(env: Env, agentId: string): Promise<AgentMaintenance | undefined> {
  let last: AgentMaintenance | undefined;
  for (let batch = 0; batch < MAX_DAILY_BATCHES && last?.done !== true; batch += 1)
    last = await runMaintenance(env, agentId, "enforce");
  return last;
}
