import {
  findSessionByKey,
  findSessionsByKeys,
  findSessionsByLabel,
  type SessionRef,
} from "../index-db/lookup";
import { normalizeAgentId } from "../keys";
import { checkCrossAgent, isRestrictedToSpawned } from "../policy/visibility";
import { parseSessionReference, referenceNotFound, resolveSessionReference } from "./resolve-session";
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
  const later = () => findSessionByKey(ctx.db, requesterKey);
  if (params.label !== undefined)
    return { target: await targetByLabel(ctx, params.label, params.agentId), requesterRow: later };
  const input = params.sessionKey ?? "";
  const reference = parseSessionReference(ctx, input);
  if (!reference.ok || !reference.keyOnly)
    return { target: await resolveSessionReference(ctx, input), requesterRow: later };
  const rows = await findSessionsByKeys(ctx.db, [reference.key, requesterKey]);
  const found = rows.get(reference.key);
  const requesterRow = rows.get(requesterKey);
  return {
    target: found ? { ok: true, session: found } : referenceNotFound(input),
    requesterRow: async () => requesterRow,
  };
}
