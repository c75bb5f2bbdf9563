import { parseConfig } from "../../src/config/load";
import type { SwitchboardConfig } from "../../src/config/schema";
import type { Requester } from "../../src/policy/requester";

/** A validated configuration built from a partial document; throws if it is invalid. */
export function configWith(document: Record<string, unknown> = {}): SwitchboardConfig {
  const result = parseConfig(JSON.stringify(document));
  if (!result.ok) throw new Error(result.error);
  return result.config;
}

/** Three agents, like the local default: `main`, `research`, and a sandboxed `ops`. */
export const threeAgents = { list: [{ id: "main" }, { id: "research" }, { id: "ops", sandbox: true }] };

/** A configuration with the three agents and the given `tools` section. */
export function toolsConfig(tools: Record<string, unknown>, agents: Record<string, unknown> = {}) {
  return configWith({ tools, agents: { ...threeAgents, ...agents } });
}

/** A top-level requester in `agent:<agentId>:main` unless told otherwise. */
export function requesterOf(overrides: Partial<Requester> = {}): Requester {
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
