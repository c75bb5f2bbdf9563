import { agentApi } from "../agent-object/client";
import type { SwitchboardConfig } from "../config/schema";
import { type AgentMaintenance, type MaintenanceMode, shardSizes } from "./run-maintenance";

/** Agents whose batch runs at once: each agent's batch is bounded, and so is how many run together. */
const AGENTS_AT_ONCE = 4;

export interface MaintenanceReport {
  mode: MaintenanceMode;
  agents: AgentMaintenance[];
  shards: { shard: string; bytes: number }[];
  /** `enforce`: false while more is due for some agent. */
  done?: boolean;
}

/**
 * SPEC §23's report over every configured agent, with `enforce` one bounded batch of each agent's policy:
 * what `POST /v1/maintenance` answers and the console's Storage page shows (the page only ever dry-runs).
 * Each agent's part runs in its agent object, an invocation of its own: D1 takes 1,000 queries per
 * invocation, and an agent's report reads one batch per shard, its `enforce` batch up to
 * `d1CallsPerEnforce` more. This invocation makes only the shards' sizes, one query each. The objects
 * follow the Worker's configuration, as `config` (which names the agents) is.
 */
export async function maintenanceReport(
  env: Env,
  config: SwitchboardConfig,
  mode: MaintenanceMode,
): Promise<MaintenanceReport> {
  const agents: AgentMaintenance[] = [];
  const ids = config.agents.list.map((agent) => agent.id);
  for (let start = 0; start < ids.length; start += AGENTS_AT_ONCE) {
    const group = ids.slice(start, start + AGENTS_AT_ONCE);
    agents.push(
      ...(await Promise.all(group.map((agentId) => agentApi(env, agentId).maintenance(agentId, mode)))),
    );
  }
  const shards = await shardSizes(env);
  return {
    mode,
    agents,
    shards,
    ...(mode === "enforce" ? { done: agents.every((agent) => agent.done !== false) } : {}),
  };
}
