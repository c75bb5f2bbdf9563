import type { SwitchboardConfig } from "../config/schema";

/** Glob match of an agent id against `tools.agentToAgent.allow` patterns; an empty list matches any. */
export function matchesAgentGlobs(patterns: readonly string[], agentId: string): boolean {
  if (patterns.length === 0) return true;
  const id = agentId.toLowerCase();
  return patterns.some((pattern) => {
    const source = pattern
      .trim()
      .toLowerCase()
      .split("*")
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*");
    return new RegExp(`^${source}$`).test(id);
  });
}

/** Whether the patterns match any agent id at all: an empty list, or a pattern of only `*`. */
export function allowsEveryAgent(patterns: readonly string[]): boolean {
  return patterns.length === 0 || patterns.some((pattern) => /^\*+$/.test(pattern.trim()));
}

export type PolicyCheck = { ok: true } | { ok: false; error: string };

/** SPEC §4 step 1 past the visibility gate: may `fromAgent` reach sessions of `toAgent`? */
export function checkAgentToAgent(
  config: { tools: Pick<SwitchboardConfig["tools"], "agentToAgent"> },
  fromAgent: string,
  toAgent: string,
): PolicyCheck {
  const { enabled, allow } = config.tools.agentToAgent;
  if (!enabled) {
    return {
      ok: false,
      error: "Agent-to-agent access is disabled; set tools.agentToAgent.enabled=true to allow it.",
    };
  }
  if (!matchesAgentGlobs(allow, fromAgent) || !matchesAgentGlobs(allow, toAgent)) {
    return {
      ok: false,
      error: `Agent-to-agent access between "${fromAgent}" and "${toAgent}" is not allowed by tools.agentToAgent.allow.`,
    };
  }
  return { ok: true };
}

/** Every configured agent the requester's agent may reach under the agent-to-agent policy, itself first. */
export function reachableAgents(config: SwitchboardConfig, fromAgent: string): string[] {
  const others = config.agents.list
    .map((agent) => agent.id)
    .filter((id) => id !== fromAgent && checkAgentToAgent(config, fromAgent, id).ok);
  return [fromAgent, ...others];
}
