import type { SessionVisibility, SwitchboardConfig } from "../config/schema";
import { allowsEveryAgent, checkAgentToAgent, reachableAgents } from "./agent-to-agent";
import type { Requester } from "./requester";

export type VisibilityAction = "list" | "history" | "send" | "status";

/**
 * The part of the configuration that visibility depends on: what `checkSessionVisible` reads, small
 * enough to hand to a session object that checks a caller against its own record.
 */
export interface VisibilityConfig {
  tools: {
    sessions: { visibility: SessionVisibility };
    agentToAgent: SwitchboardConfig["tools"]["agentToAgent"];
  };
  agents: {
    defaults: { sandbox: Pick<SwitchboardConfig["agents"]["defaults"]["sandbox"], "sessionToolsVisibility"> };
  };
}

export function visibilityConfigOf(config: SwitchboardConfig): VisibilityConfig {
  return {
    tools: {
      sessions: { visibility: config.tools.sessions.visibility },
      agentToAgent: config.tools.agentToAgent,
    },
    agents: {
      defaults: {
        sandbox: { sessionToolsVisibility: config.agents.defaults.sandbox.sessionToolsVisibility },
      },
    },
  };
}

/** SPEC §4: the configured visibility, clamped to `tree` for a sandboxed requester in "spawned" mode. */
export function effectiveVisibility(config: VisibilityConfig, requester: Requester): SessionVisibility {
  const configured = config.tools.sessions.visibility;
  const clampToTree =
    requester.sandboxed && config.agents.defaults.sandbox.sessionToolsVisibility === "spawned";
  if (clampToTree && (configured === "agent" || configured === "all")) return "tree";
  return configured;
}

/** A sandboxed top-level requester only finds, by sessionId or label, the sessions it spawned. */
export function isRestrictedToSpawned(config: SwitchboardConfig, requester: Requester): boolean {
  return (
    requester.sandboxed &&
    !requester.isSubagent &&
    config.agents.defaults.sandbox.sessionToolsVisibility === "spawned"
  );
}

/** Which sessions a requester may see, in the form the D1 query filters on. */
export type VisibleScope =
  | {
      type: "self" | "tree";
      sessionKey: string;
      agentId: string;
      /** The requester's session id: `tree` reaches only its own children (SPEC §23). */
      sessionId?: string;
    }
  | { type: "agents"; agentIds: string[] }
  | { type: "all" };

/** The requester's visible scope for list queries (SPEC §4, applied in the query). */
export function visibleScope(config: SwitchboardConfig, requester: Requester): VisibleScope {
  const visibility = effectiveVisibility(config, requester);
  if (visibility === "self" || visibility === "tree") {
    return {
      type: visibility,
      sessionKey: requester.sessionKey,
      agentId: requester.agentId,
      ...(requester.sessionId ? { sessionId: requester.sessionId } : {}),
    };
  }
  if (visibility === "agent") return { type: "agents", agentIds: [requester.agentId] };
  // Every agent, configured or not (the cross-agent check lets any through): no agent condition, so the
  // list query is one ordered index walk rather than a branch per agent.
  const { enabled, allow } = config.tools.agentToAgent;
  if (enabled && allowsEveryAgent(allow)) return { type: "all" };
  return { type: "agents", agentIds: reachableAgents(config, requester.agentId) };
}

export type VisibilityCheck = { ok: true } | { ok: false; status: "forbidden"; error: string };

/** SPEC §4 step 1: may the requester reach sessions of another agent at all? */
export function checkCrossAgent(
  config: VisibilityConfig,
  requester: Requester,
  targetAgentId: string,
  action: VisibilityAction,
): VisibilityCheck {
  if (targetAgentId === requester.agentId) return { ok: true };
  const visibility = effectiveVisibility(config, requester);
  if (visibility !== "all") {
    return {
      ok: false,
      status: "forbidden",
      error: `Session ${action} across agents is not allowed: tools.sessions.visibility=${visibility} restricts to agent "${requester.agentId}"; visibility=all and tools.agentToAgent.enabled=true are needed.`,
    };
  }
  const crossAgent = checkAgentToAgent(config, requester.agentId, targetAgentId);
  return crossAgent.ok ? { ok: true } : { ok: false, status: "forbidden", error: crossAgent.error };
}

/** SPEC §4: may the requester act (`action`) on this target session? */
export function checkSessionVisible(
  config: VisibilityConfig,
  requester: Requester,
  target: { sessionKey: string; agentId: string; spawnedBy?: string; spawnedById?: string },
  action: VisibilityAction,
): VisibilityCheck {
  const visibility = effectiveVisibility(config, requester);
  const forbid = (error: string): VisibilityCheck => ({ ok: false, status: "forbidden", error });
  if (target.agentId !== requester.agentId) return checkCrossAgent(config, requester, target.agentId, action);
  if (target.sessionKey === requester.sessionKey) return { ok: true };
  if (visibility === "self") {
    return forbid(`Session ${action} is restricted to the current session (tools.sessions.visibility=self).`);
  }
  if (visibility === "tree" && !spawnedByRequester(requester, target)) {
    return forbid(
      `Session ${action} is restricted to the current session tree (tools.sessions.visibility=tree): the current session and the sessions it spawned.`,
    );
  }
  return { ok: true };
}

/**
 * Whether the requester's session spawned the target (visibility `tree`): its key, and its session
 * (SPEC §23 "Generations": a child of an earlier session of the key, deleted since, is not its own).
 * A child from before children were bound, or a requester whose id is not known, goes by key.
 */
function spawnedByRequester(
  requester: Requester,
  target: { spawnedBy?: string; spawnedById?: string },
): boolean {
  if (target.spawnedBy !== requester.sessionKey) return false;
  return target.spawnedById === undefined || requester.sessionId === undefined
    ? true
    : target.spawnedById === requester.sessionId;
}
