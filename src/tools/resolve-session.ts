import { findSessionById, findSessionByKey, type SessionRef } from "../index-db/lookup";
import { canonicalizeKeyInput, isUuidLike, looksLikeSessionKey, mainSessionKey } from "../keys";
import { isRestrictedToSpawned, visibilityConfigOf } from "../policy/visibility";
import type { Viewer } from "../session/api";
import type { ToolContext, ToolFailure } from "./types";

export type SessionLookup = { ok: true; session: SessionRef } | ({ ok: false } & ToolFailure);

/** The lookup failure for a reference that names no session (the same text on every path). */
export const referenceNotFound = (input: string): SessionLookup & { ok: false } => ({
  ok: false,
  status: "error",
  error: `Session not found: ${input}. Use the full session key from sessions_list.`,
});

/** A failure as a tool answers it: its status and error, nothing else of the lookup. */
export const failureOf = ({ status, error }: ToolFailure): ToolFailure => ({ status, error });

/** The requester as a session object checks its visibility itself (SPEC §4), for a read by key alone. */
export const viewerOf = (ctx: ToolContext): Viewer => ({
  requester: ctx.requester,
  visibility: visibilityConfigOf(ctx.config),
});

/** A reference's canonical key, and whether only that key can match (no sessionId fallback). */
export type ParsedReference = { ok: true; key: string; keyOnly: boolean } | ({ ok: false } & ToolFailure);

/**
 * Parses a SPEC §1 reference without storage: `current`, `main`, a key (canonical or legacy), or a
 * sessionId. UUID-shaped and key-less inputs may be either a key or a sessionId (`keyOnly` false).
 */
export function parseSessionReference(ctx: ToolContext, input: string): ParsedReference {
  const { requester } = ctx;
  const key =
    input === "current"
      ? { ok: true as const, key: requester.sessionKey }
      : canonicalizeKeyInput(input, requester.agentId, ctx.keyOptions);
  if (!key.ok) return { ok: false, status: "error", error: key.error };
  const keyOnly = input === "current" || (looksLikeSessionKey(input, ctx.keyOptions) && !isUuidLike(input));
  return { ok: true, key: key.key, keyOnly };
}

/** SPEC §1 reference resolution through the index: tried as a key first, then (if it may be) a sessionId. */
export async function resolveSessionReference(ctx: ToolContext, input: string): Promise<SessionLookup> {
  const reference = parseSessionReference(ctx, input);
  if (!reference.ok) return reference;
  const byKey = await findSessionByKey(ctx.shards, reference.key);
  if (byKey) return { ok: true, session: byKey };
  if (reference.keyOnly) return referenceNotFound(input);
  const byId = await findSessionById(ctx.shards, input);
  if (!byId) return referenceNotFound(input);
  // A sandboxed top-level requester finds by sessionId only the sessions it spawned (SPEC §4).
  if (isRestrictedToSpawned(ctx.config, ctx.requester) && byId.spawnedBy !== ctx.requester.sessionKey)
    return referenceNotFound(input);
  return { ok: true, session: byId };
}

/**
 * SPEC §12: the requester's own session and its agent's main session exist for a reader even before
 * anything was written to them. For such a canonical key, the session as visibility checks it: never
 * written, so never spawned, a top-level session of the requester's agent. Undefined for any other
 * key, which stays "not found". Reading never creates the session.
 */
export function implicitSession(
  ctx: ToolContext,
  sessionKey: string,
): { sessionKey: string; agentId: string } | undefined {
  const main = mainSessionKey(ctx.requester.agentId, ctx.keyOptions);
  if (sessionKey !== ctx.requester.sessionKey && sessionKey !== main) return undefined;
  return { sessionKey, agentId: ctx.requester.agentId };
}
