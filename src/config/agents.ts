import type { SessionKind } from "../keys/types";
import { type MaintenancePolicy, resolveMaintenance } from "./maintenance";
import type { AgentConfig, SwitchboardConfig, ToolProfile } from "./schema";

/** Built-in sub-agent defaults (SPEC §2), overridden by `agents.defaults.subagents`, then per agent. */
const SUBAGENT_DEFAULTS = {
  maxSpawnDepth: 1,
  maxChildrenPerAgent: 5,
  maxConcurrent: 8,
  runTimeoutSeconds: 0,
  archiveAfterMinutes: 60,
  announceTimeoutMs: 120_000,
  allowAgents: [] as string[],
  requireAgentId: false,
};

export type SubagentSettings = typeof SUBAGENT_DEFAULTS & { model?: string; thinking?: string };

/** The context window of a model we know nothing about (SPEC §20), in tokens. */
export const DEFAULT_CONTEXT_WINDOW = 128_000;

/**
 * The windows of well-known models, by the start of the model's name (a provider prefix such as
 * `openai/` dropped); the first match wins, so a longer prefix comes before a shorter one.
 */
const KNOWN_CONTEXT_WINDOWS: ReadonlyArray<readonly [prefix: string, tokens: number]> = [
  ["claude-", 200_000],
  ["gpt-4.1", 1_047_576],
  ["gpt-4o", 128_000],
  ["gpt-4-turbo", 128_000],
  ["gpt-5", 400_000],
  ["o1", 200_000],
  ["o3", 200_000],
  ["o4-mini", 200_000],
];

/** The window of a well-known model by its name, else undefined. */
export function knownContextWindow(model: string): number | undefined {
  const name = model.toLowerCase().split("/").pop() ?? "";
  return KNOWN_CONTEXT_WINDOWS.find(([prefix]) => name.startsWith(prefix))?.[1];
}

/** The window of an agent's model: its `contextWindow`, else its model's when well known, else the default. */
export function agentContextWindow(agent: AgentConfig): number {
  const model = "model" in agent.runtime ? agent.runtime.model : agent.model;
  return agent.contextWindow ?? knownContextWindow(model) ?? DEFAULT_CONTEXT_WINDOW;
}

/** The context window of an agent's model (`contextTokens` of its sessions); the default for an unknown agent. */
export function contextWindowOf(config: SwitchboardConfig, agentId: string): number {
  const agent = findAgent(config, agentId);
  return agent ? agentContextWindow(agent) : DEFAULT_CONTEXT_WINDOW;
}

/** The configured agent with this id, if any. */
export function findAgent(config: SwitchboardConfig, agentId: string): AgentConfig | undefined {
  return config.agents.list.find((agent) => agent.id === agentId);
}

/** The effective sub-agent settings of an agent: built-in defaults < agents.defaults < the agent's own. */
export function subagentSettings(config: SwitchboardConfig, agentId: string): SubagentSettings {
  const own = findAgent(config, agentId)?.subagents ?? {};
  const merged: SubagentSettings = { ...SUBAGENT_DEFAULTS };
  for (const layer of [config.agents.defaults.subagents, own]) {
    for (const [name, value] of Object.entries(layer)) {
      if (value !== undefined) Object.assign(merged, { [name]: value });
    }
  }
  return merged;
}

/** Built-in collector settings (SPEC §15 `tools.swarm`). */
const SWARM_DEFAULTS = {
  enabled: true,
  maxConcurrent: 8,
  maxChildrenPerGroup: 50,
  maxTotalPerGroup: 200,
  waitTimeoutSecondsMax: 600,
  defaultAgentId: "",
};

export type SwarmSettings = typeof SWARM_DEFAULTS;

/**
 * An agent's collector settings: built-in defaults < `tools.swarm` < the agent's own `swarm`; `false` at
 * either level turns collectors off.
 */
export function swarmSettings(config: SwitchboardConfig, agentId: string): SwarmSettings {
  const merged: SwarmSettings = { ...SWARM_DEFAULTS };
  for (const layer of [config.tools.swarm, findAgent(config, agentId)?.swarm]) {
    if (layer === false) merged.enabled = false;
    else if (layer) {
      for (const [name, value] of Object.entries(layer)) {
        if (value !== undefined) Object.assign(merged, { [name]: value });
      }
    }
  }
  return merged;
}

/** The tool profile and extra tools of an agent (per-agent settings win over `tools.*`). */
export function agentToolPolicy(
  config: SwitchboardConfig,
  agentId: string,
): { profile: ToolProfile; alsoAllow: string[] } {
  const own = findAgent(config, agentId)?.tools;
  return {
    profile: own?.profile ?? config.tools.profile,
    alsoAllow: [...config.tools.alsoAllow, ...(own?.alsoAllow ?? [])],
  };
}

/** Models a session override may name: every agent's model and the sub-agent defaults. */
export function configuredModels(config: SwitchboardConfig): Set<string> {
  const models = new Set<string>();
  for (const agent of config.agents.list) {
    models.add(agent.model);
    if (agent.subagents?.model) models.add(agent.subagents.model);
  }
  if (config.agents.defaults.subagents.model) models.add(config.agents.defaults.subagents.model);
  return models;
}

/** Why `model` cannot be set (the same words for every tool that sets one), or undefined if it can. */
export function unknownModelError(config: SwitchboardConfig, model: string): string | undefined {
  const models = configuredModels(config);
  if (models.has(model)) return undefined;
  return `Unknown model "${model}". Configured models: ${[...models].join(", ")}.`;
}

/** SPEC §23: the retention of one agent's sessions of one kind (config/maintenance.ts). */
export function maintenancePolicy(
  config: SwitchboardConfig,
  agentId: string,
  kind: SessionKind,
): MaintenancePolicy {
  return resolveMaintenance(config.session.maintenance, findAgent(config, agentId)?.maintenance, kind);
}
