import { indexShards } from "../index-db/shards";
import { type AgentMaintenance, d1CallsPerEnforce, runMaintenance } from "./run-maintenance";

/** Batches one daily pass takes at most; what is left waits for the next day (or the operator's CLI). */
const MAX_DAILY_BATCHES = 20;
/**
 * D1 queries one pass may make: D1 takes 1,000 per Worker invocation (Workers Paid), and the pass is one
 * (the agent object's alarm); the rest is the alarm's own.
 */
const D1_CALLS_PER_PASS = 900;

/** Batches one pass takes over `shards` index shards: at most 20, and within the invocation's D1 queries. */
export function dailyBatches(shards: number): number {
  return Math.max(1, Math.min(MAX_DAILY_BATCHES, Math.floor(D1_CALLS_PER_PASS / d1CallsPerEnforce(shards))));
}

/**
 * One agent's daily pass (SPEC §23), `enforce` batch after batch until done: run by the agent object's
 * alarm once a day (src/agent-object/scheduler.ts, `maintenance_at`), handed in by the AgentObject.
 */
export async function runDailyMaintenance(env: Env, agentId: string): Promise<AgentMaintenance | undefined> {
  let last: AgentMaintenance | undefined;
  const batches = dailyBatches(indexShards(env).length);
  for (let batch = 0; batch < batches && last?.done !== true; batch += 1)
    last = await runMaintenance(env, agentId, "enforce");
  return last;
}
