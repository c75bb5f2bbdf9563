import { findSessionById, findSessionByKey, type SessionRef } from "../index-db/lookup";
import { canonicalizeKeyInput, isUuidLike, looksLikeSessionKey } from "../keys";
import { isRestrictedToSpawned } from "../policy/visibility";
import type { ToolContext, ToolFailure } from "./types";

export type SessionLookup = { ok: true; session: SessionRef } | ({ ok: false } & ToolFailure);

const notFound = (input: string): SessionLookup => ({
  ok: false,
  status: "error",
  error: `Session not found: ${input}. Use the full session key from sessions_list.`,
});

/**
 * SPEC §1 reference resolution: `current`, `main`, a key (canonical or legacy), or a sessionId.
 * UUID-shaped and key-less inputs are tried as a key first, then as a sessionId.
 */
export async function resolveSessionReference(ctx: ToolContext, input: string): Promise<SessionLookup> {
  const { requester } = ctx;
  const key =
    input === "current"
      ? { ok: true as const, key: requester.sessionKey }
      : canonicalizeKeyInput(input, requester.agentId, ctx.keyOptions);
  if (!key.ok) return { ok: false, status: "error", error: key.error };
  const byKey = await findSessionByKey(ctx.db, key.key);
  if (byKey) return { ok: true, session: byKey };
  if (input === "current" || (looksLikeSessionKey(input, ctx.keyOptions) && !isUuidLike(input)))
    return notFound(input);
  const byId = await findSessionById(ctx.db, input);
  if (!byId) return notFound(input);
  // A sandboxed top-level requester finds by sessionId only the sessions it spawned (SPEC §4).
  if (isRestrictedToSpawned(ctx.config, requester) && byId.spawnedBy !== requester.sessionKey)
    return notFound(input);
  return { ok: true, session: byId };
}
