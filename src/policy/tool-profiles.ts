import { agentToolPolicy, subagentSettings } from "../config/agents";
import { type SwitchboardConfig, type ToolName, type ToolProfile, toolNames } from "../config/schema";
import type { Requester } from "./requester";

/** SPEC §5.9: the tools each profile grants. */
export const profileTools: Record<ToolProfile, readonly ToolName[]> = {
  minimal: ["session_status"],
  coding: [
    "sessions_list",
    "sessions_history",
    "sessions_send",
    "sessions_spawn",
    "sessions_yield",
    "subagents",
    "agents_list",
    "session_status",
    "sessions",
    "sessions_search",
    "agents_wait",
    "cron",
  ],
  messaging: [
    "sessions_list",
    "sessions_history",
    "sessions_send",
    "session_status",
    "sessions",
    "sessions_search",
  ],
  // structured_output is no profile's: only a collector child with an outputSchema gets it (SPEC §19).
  full: toolNames.filter((name) => name !== "structured_output"),
};

const isToolName = (name: string): name is ToolName => (toolNames as readonly string[]).includes(name);

/** The profile's tools plus `alsoAllow` (unknown names ignored). */
export function profileToolSet(profile: ToolProfile, alsoAllow: readonly string[]): Set<ToolName> {
  return new Set([...profileTools[profile], ...alsoAllow.filter(isToolName)]);
}

/** Tools sub-agents never get, and those leaves additionally lose (SPEC §5.4). */
const SUBAGENT_DENIED: readonly ToolName[] = ["sessions_send", "session_status", "agents_list", "cron"];
const LEAF_DENIED: readonly ToolName[] = [
  "sessions_spawn",
  "subagents",
  "sessions_list",
  "sessions_history",
  // A leaf spawns nothing, so it never has children to yield for: the tool could only fail.
  "sessions_yield",
  "sessions",
  "sessions_search",
  // Nor collectors to wait for.
  "agents_wait",
];

/**
 * SPEC §5.4 sub-agent tool policy, applied after the profile: fixed denials by role, then
 * `tools.subagents.tools` (allow replaces, alsoAllow adds, deny always wins). It filters the
 * profile's tools and never grants one the profile does not (as in the reference).
 */
export function applySubagentPolicy(
  tools: Set<ToolName>,
  depth: number,
  maxSpawnDepth: number,
  policy: { allow?: string[]; alsoAllow?: string[]; deny?: string[] },
): Set<ToolName> {
  if (depth < 1) return tools;
  const denied = new Set<ToolName>(
    depth >= maxSpawnDepth ? [...SUBAGENT_DENIED, ...LEAF_DENIED] : SUBAGENT_DENIED,
  );
  const inProfile = (name: string): name is ToolName => isToolName(name) && tools.has(name);
  let result = new Set([...tools].filter((tool) => !denied.has(tool)));
  if (policy.allow) result = new Set(policy.allow.filter(inProfile));
  for (const name of policy.alsoAllow ?? []) if (inProfile(name)) result.add(name);
  for (const name of policy.deny ?? []) if (isToolName(name)) result.delete(name);
  return result;
}

/**
 * Every tool this requester may call: profile, alsoAllow, then the sub-agent policy; then
 * `structured_output` for a collector run with an outputSchema, which no profile or policy grants or
 * takes away: without it, that run could only end failed (SPEC §15). A collector's run never yields:
 * its result is collected at its end, and a yielded run would end without one.
 */
export function allowedTools(config: SwitchboardConfig, requester: Requester): Set<ToolName> {
  const { profile, alsoAllow } = agentToolPolicy(config, requester.agentId);
  const fromProfile = profileToolSet(profile, alsoAllow);
  const { maxSpawnDepth } = subagentSettings(config, requester.agentId);
  const tools = applySubagentPolicy(
    fromProfile,
    requester.depth,
    maxSpawnDepth,
    config.tools.subagents.tools,
  );
  if (requester.structuredOutput && requester.runId) tools.add("structured_output");
  if (requester.collector) tools.delete("sessions_yield");
  // Never offered to sub-agents (SPEC §22, as in OpenClaw), whatever tools.subagents.tools allows.
  if (requester.depth > 0) tools.delete("cron");
  return tools;
}
