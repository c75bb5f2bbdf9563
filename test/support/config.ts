import { env } from "cloudflare:workers";
import { parseConfig } from "../../src/config/load";
import type { AgentConfig, SwitchboardConfig } from "../../src/config/schema";
import type { Requester } from "../../src/policy/requester";

/** A validated configuration built from a (partial) document, defaults filled in; throws if it is invalid. */
export function configFrom(document: Record<string, unknown> = {}): SwitchboardConfig {
  const result = parseConfig(JSON.stringify(document));
  if (!result.ok) throw new Error(result.error);
  return result.config;
}

/** The Worker's own configuration (test-config.ts, bound as SWITCHBOARD_CONFIG), parsed. */
export function workerConfig(): SwitchboardConfig {
  return configFrom(JSON.parse(env.SWITCHBOARD_CONFIG ?? "{}"));
}

/** The Worker's own configuration (a fresh parse) changed by `change`, then validated again. */
export function workerConfigWith(change: (config: SwitchboardConfig) => void): SwitchboardConfig {
  const config = workerConfig();
  change(config);
  return configFrom(config);
}

/** The agent `id` of a configuration, to change it in a `workerConfigWith` callback; throws if absent. */
export function agentIn(config: SwitchboardConfig, id: string): AgentConfig {
  const agent = config.agents.list.find((each) => each.id === id);
  if (!agent) throw new Error(`no agent ${id} in the configuration`);
  return agent;
}

/** Three agents, like the local default: `main`, `research`, and a sandboxed `ops`. */
export const threeAgents = { list: [{ id: "main" }, { id: "research" }, { id: "ops", sandbox: true }] };

/** A configuration with the three agents and the given `tools` section. */
export function toolsConfig(tools: Record<string, unknown>, agents: Record<string, unknown> = {}) {
  return configFrom({ tools, agents: { ...threeAgents, ...agents } });
}

/** A top-level requester `agent:<agentId>:main` (agent `main`, depth 0, not sandboxed) unless overridden. */
export function requesterWith(overrides: Partial<Requester> = {}): Requester {
  const agentId = overrides.agentId ?? "main";
  return {
    agentId,
    sessionKey: `agent:${agentId}:main`,
    depth: 0,
    sandboxed: false,
    isSubagent: false,
    ...overrides,
  };
}

/**
 * The requester the credential layer would fix for a session key under the Worker's configuration: its
 * agent from the key (`main` if none), sandboxed as that agent is configured, depth 0.
 */
export function requesterFor(sessionKey: string, extra: Partial<Requester> = {}): Requester {
  const agentId = /^agent:([^:]+):/.exec(sessionKey)?.[1] ?? "main";
  const sandboxed = workerConfig().agents.list.find((agent) => agent.id === agentId)?.sandbox ?? false;
  return { agentId, sessionKey, depth: 0, sandboxed, isSubagent: false, ...extra };
}
