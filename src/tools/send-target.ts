import { findSessionsByLabel, type SessionRef } from "../index-db/lookup";
import { normalizeAgentId } from "../keys";
import { checkCrossAgent, isRestrictedToSpawned } from "../policy/visibility";
import { resolveSessionReference } from "./resolve-session";
import type { ToolContext, ToolFailure } from "./types";

export type TargetLookup = { ok: true; session: SessionRef } | ({ ok: false } & ToolFailure);

/** sessions_send's target by label (SPEC §5.3): cross-agent rules first, then the sandbox restriction. */
async function targetByLabel(
  ctx: ToolContext,
  label: string,
  agentIdParam: string | undefined,
): Promise<TargetLookup> {
  const agentId = agentIdParam === undefined ? ctx.requester.agentId : normalizeAgentId(agentIdParam);
  if (!agentId) return { ok: false, status: "error", error: `Invalid agentId "${agentIdParam}".` };
  const crossAgent = checkCrossAgent(ctx.config, ctx.requester, agentId, "send");
  if (!crossAgent.ok) return crossAgent;
  const spawnedBy = isRestrictedToSpawned(ctx.config, ctx.requester) ? ctx.requester.sessionKey : undefined;
  const found = await findSessionsByLabel(ctx.db, agentId, label, spawnedBy);
  const [first, second] = found;
  if (!first) {
    return {
      ok: false,
      status: "error",
      error: `No session labelled "${label}" for agent ${agentId}. Use sessions_list to find the session key.`,
    };
  }
  if (second)
    return {
      ok: false,
      status: "error",
      error: `Label "${label}" matches more than one session; use sessionKey.`,
    };
  return { ok: true, session: first };
}

/** Resolves sessions_send's target from `sessionKey` or `label`. */
export async function resolveSendTarget(
  ctx: ToolContext,
  params: { sessionKey?: string; label?: string; agentId?: string },
): Promise<TargetLookup> {
  if (params.label !== undefined) return targetByLabel(ctx, params.label, params.agentId);
  return resolveSessionReference(ctx, params.sessionKey ?? "");
}
