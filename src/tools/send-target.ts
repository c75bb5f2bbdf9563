import { findAgent } from "../config/agents";
import {
  findSessionByKey,
  findSessionsByKeys,
  findSessionsByLabel,
  type SessionRef,
} from "../index-db/lookup";
import { mainSessionKey, normalizeAgentId, parseSessionKey } from "../keys";
import { checkCrossAgent, isRestrictedToSpawned } from "../policy/visibility";
import { parseSessionReference, referenceNotFound, resolveSessionReference } from "./resolve-session";
import type { ToolContext, ToolFailure } from "./types";

/**
 * The target found, or a configured agent's main session not created yet (`missing`: SPEC §12, the
 * send creates it once the checks pass), or why there is none.
 */
export type TargetLookup = { ok: true; session: SessionRef; missing?: true } | ({ ok: false } & ToolFailure);

/** A configured agent's main session that does not exist yet, as a target (SPEC §12). */
const missingMainTarget = (sessionKey: string, agentId: string): TargetLookup => ({
  ok: true,
  session: { sessionKey, sessionId: "", agentId, spawnDepth: 0, channel: "unknown" },
  missing: true,
});

/** The missing target a key names if it is a configured agent's main session, else undefined. */
function missingMain(ctx: ToolContext, key: string): TargetLookup | undefined {
  const parsed = parseSessionKey(key, ctx.keyOptions);
  if (!parsed || !findAgent(ctx.config, parsed.agentId)) return undefined;
  return mainSessionKey(parsed.agentId, ctx.keyOptions) === key
    ? missingMainTarget(key, parsed.agentId)
    : undefined;
}

/** `agentId` alone: that configured agent's main session, found or to be created (SPEC §12). */
async function agentMainTarget(ctx: ToolContext, agentIdParam: string): Promise<TargetLookup> {
  const agentId = normalizeAgentId(agentIdParam);
  if (!agentId || !findAgent(ctx.config, agentId))
    return {
      ok: false,
      status: "error",
      error: `Agent "${agentIdParam}" not found. Use agents_list to see the configured agents.`,
    };
  // Checks that need no storage come first (SPEC §5.0).
  const crossAgent = checkCrossAgent(ctx.config, ctx.requester, agentId, "send");
  if (!crossAgent.ok) return crossAgent;
  const main = mainSessionKey(agentId, ctx.keyOptions);
  const found = await findSessionByKey(ctx.shards, main);
  return found ? { ok: true, session: found } : missingMainTarget(main, agentId);
}

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
  const found = await findSessionsByLabel(ctx.shards, agentId, label, spawnedBy);
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

/** sessions_send's target, and the requester's own index row (its channel goes into the message). */
export interface SendParties {
  target: TargetLookup;
  requesterRow: () => Promise<SessionRef | undefined>;
}

/**
 * Resolves sessions_send's target from `sessionKey` or `label`. A reference that can only be a key is
 * read together with the requester's row, in one index read; otherwise the requester's row is read
 * when asked for.
 */
export async function resolveSendParties(
  ctx: ToolContext,
  params: { sessionKey?: string; label?: string; agentId?: string },
): Promise<SendParties> {
  const requesterKey = ctx.requester.sessionKey;
  const later = () => findSessionByKey(ctx.shards, requesterKey);
  if (params.label !== undefined)
    return { target: await targetByLabel(ctx, params.label, params.agentId), requesterRow: later };
  if (params.sessionKey === undefined && params.agentId !== undefined)
    return { target: await agentMainTarget(ctx, params.agentId), requesterRow: later };
  const input = params.sessionKey ?? "";
  const reference = parseSessionReference(ctx, input);
  const orMissingMain = (lookup: TargetLookup): TargetLookup =>
    lookup.ok || !reference.ok ? lookup : (missingMain(ctx, reference.key) ?? lookup);
  if (!reference.ok || !reference.keyOnly)
    return { target: orMissingMain(await resolveSessionReference(ctx, input)), requesterRow: later };
  const rows = await findSessionsByKeys(ctx.shards, [reference.key, requesterKey]);
  const found = rows.get(reference.key);
  const requesterRow = rows.get(requesterKey);
  return {
    target: found ? { ok: true, session: found } : orMissingMain(referenceNotFound(input)),
    requesterRow: async () => requesterRow,
  };
}
