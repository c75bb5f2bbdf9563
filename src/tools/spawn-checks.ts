import { findAgent, subagentSettings, unknownModelError } from "../config/agents";
import type { AgentConfig } from "../config/schema";
import { countActiveChildren } from "../index-db/lookup";
import { normalizeAgentId } from "../keys";
import { requesterSessionId } from "./requester-session";
import type { ToolContext, ToolFailure } from "./types";

export const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh"] as const;

export interface SpawnRequest {
  agentId?: string;
  mode?: "run" | "session";
  thread?: boolean;
  sandbox?: "inherit" | "require";
  model?: string;
  thinking?: string;
  context?: "isolated" | "fork";
  /** A collector (SPEC §15): limited by its group's caps instead of maxChildrenPerAgent. */
  collect?: boolean;
}

export type SpawnPlan = {
  ok: true;
  target: AgentConfig;
  mode: "run" | "session";
  model?: string;
  thinking?: string;
};

const failure = (status: ToolFailure["status"], error: string): { ok: false } & ToolFailure => ({
  ok: false,
  status,
  error,
});

/** The allowAgents list, lower-cased; `*` means any configured agent. */
function allowedTargets(ctx: ToolContext): { any: boolean; ids: string[] } {
  const allow = subagentSettings(ctx.config, ctx.requester.agentId).allowAgents.map((id) =>
    id.trim().toLowerCase(),
  );
  return { any: allow.includes("*"), ids: allow.filter((id) => id !== "*") };
}

/**
 * SPEC §5.4's checks before any attachment work, in order; each failure is a result, not an HTTP error.
 * `isRepeat` (asked right before the first storage check) says the call repeats an accepted spawn: the
 * active-children limit is then not applied again, since that spawn may hold the last slot itself.
 */
export async function checkSpawn(
  ctx: ToolContext,
  request: SpawnRequest,
  isRepeat: (targetId: string) => Promise<boolean> = async () => false,
): Promise<SpawnPlan | ({ ok: false } & ToolFailure)> {
  const { requester, config } = ctx;
  const targetId = request.agentId === undefined ? requester.agentId : normalizeAgentId(request.agentId);
  if (!targetId)
    return failure("error", `Invalid agentId "${request.agentId}": use [a-z0-9][a-z0-9_-]{0,63}.`);
  if (request.mode === "session" && !request.thread) {
    return failure("error", 'mode "session" needs thread: true; use mode "run" for a one-off task.');
  }
  const settings = subagentSettings(config, requester.agentId);
  if (requester.depth >= settings.maxSpawnDepth) {
    return failure(
      "forbidden",
      `Sub-agent depth ${requester.depth} has reached agents.defaults.subagents.maxSpawnDepth=${settings.maxSpawnDepth}; this session cannot spawn.`,
    );
  }
  const active =
    (await isRepeat(targetId)) || request.collect
      ? 0
      : await countActiveChildren(ctx.shards, requester.sessionKey, requesterSessionId(ctx));
  if (active >= settings.maxChildrenPerAgent) {
    return failure(
      "forbidden",
      `This session already has ${active} active sub-agents (maxChildrenPerAgent=${settings.maxChildrenPerAgent}); wait for one to finish or kill one with subagents.`,
    );
  }
  if (settings.requireAgentId && request.agentId === undefined) {
    return failure("forbidden", "agentId is required here (subagents.requireAgentId=true); see agents_list.");
  }
  if (targetId !== requester.agentId) {
    const allowed = allowedTargets(ctx);
    if (!allowed.any && !allowed.ids.includes(targetId)) {
      const list =
        allowed.ids.length > 0 ? `allowed: ${allowed.ids.join(", ")}` : "no other agents are allowed";
      return failure(
        "forbidden",
        `Spawning agent "${targetId}" is not allowed (subagents.allowAgents; ${list}).`,
      );
    }
  }
  const target = findAgent(config, targetId);
  if (!target) return failure("error", `Unknown agent "${targetId}"; see agents_list.`);
  if (requester.sandboxed && !target.sandbox) {
    return failure("forbidden", `A sandboxed session cannot spawn the unsandboxed agent "${targetId}".`);
  }
  if (request.sandbox === "require" && !target.sandbox) {
    return failure("forbidden", `sandbox: "require" but agent "${targetId}" is not sandboxed.`);
  }
  const targetSettings = subagentSettings(config, targetId);
  const model = request.model ?? targetSettings.model;
  const badModel = model === undefined ? undefined : unknownModelError(config, model);
  if (badModel) return failure("error", badModel);
  const thinking = request.thinking ?? targetSettings.thinking;
  if (thinking !== undefined && !(THINKING_LEVELS as readonly string[]).includes(thinking)) {
    return failure("error", `Invalid thinking "${thinking}"; use one of ${THINKING_LEVELS.join(", ")}.`);
  }
  if (request.context === "fork" && targetId !== requester.agentId) {
    return failure("error", 'context: "fork" copies your transcript, so it only works for your own agent.');
  }
  const mode = request.mode ?? (request.thread ? "session" : "run");
  return { ok: true, target, mode, ...(model ? { model } : {}), ...(thinking ? { thinking } : {}) };
}
