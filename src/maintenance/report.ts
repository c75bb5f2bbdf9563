import { agentApi } from "../agent-object/client";
import type { SwitchboardConfig } from "../config/schema";
import { type AgentMaintenance, type MaintenanceMode, runMaintenance, shardSizes } from "./run-maintenance";

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
 * A batch makes up to `d1CallsPerEnforce` D1 queries, so each agent's runs in its agent object, an
 * invocation of its own (D1 takes 1,000 per invocation): this one makes only the report's, one a shard
 * per agent. The object's batch follows the Worker's configuration, as `config` is.
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
      ...(await Promise.all(
        group.map((agentId) =>
          mode === "enforce"
            ? agentApi(env, agentId).maintenanceBatch(agentId)
            : runMaintenance(env, agentId, mode, { config }),
        ),
      )),
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
