import type { GrantScope } from "../../auth/grant-token";
import type { Identity } from "../../auth/identity";
import { findAgent } from "../../config/agents";
import { keyOptionsOf } from "../../config/key-options";
import type { SwitchboardConfig } from "../../config/schema";
import { AppError, badRequest } from "../../errors";
import { canonicalizeKeyInput, parseSessionKey } from "../../keys";
import type { VisibleScope } from "../../policy/visibility";

/** Why a grant token is refused anywhere but its own session's allowed routes (SPEC §18). */
export const GRANT_REACH = "a grant token reaches only its session's read, send and events routes";

/** The operator API takes operator tokens, and agent tokens for their own agent's sessions (SPEC §9). */
export function assertOperatorApiAccess(identity: Identity): void {
  if (identity.kind === "run") throw new AppError("forbidden", "run tokens may not use the sessions API");
  if (identity.kind === "grant") throw new AppError("forbidden", GRANT_REACH);
}

/**
 * A grant's access to a session (SPEC §18): refused (403) when the identity is a grant that lacks
 * `scope` or names another session; nothing for other identities, whose access is checked as usual.
 * `sessionKey` is canonical. The stream routes call it once they know the session.
 */
export function assertGrantScope(identity: Identity, sessionKey: string, scope: GrantScope): void {
  if (identity.kind !== "grant") return;
  if (!identity.scopes.includes(scope))
    throw new AppError("forbidden", `this grant token lacks the "${scope}" scope`);
  if (identity.sessionKey !== sessionKey)
    throw new AppError("forbidden", "a grant token reaches only its own session");
}

/** The canonical key a grant's request names, which must be the grant's own session (else 403). */
export function grantSessionKey(
  identity: Extract<Identity, { kind: "grant" }>,
  config: SwitchboardConfig,
  rawKey: string,
): string {
  const options = keyOptionsOf(config);
  const owner = parseSessionKey(identity.sessionKey, options)?.agentId;
  const key = owner ? canonicalizeKeyInput(rawKey, owner, options) : undefined;
  if (!key?.ok || key.key !== identity.sessionKey)
    throw new AppError("forbidden", "a grant token reaches only its own session");
  return key.key;
}

/** The agent a request acts for: an agent token's own, else the one the operator names. */
export function agentForRequest(
  identity: Identity,
  config: SwitchboardConfig,
  named: string | undefined,
): string {
  assertOperatorApiAccess(identity);
  const agentId = named?.trim().toLowerCase();
  if (identity.kind === "agent" && agentId && agentId !== identity.agentId) {
    throw new AppError("forbidden", `an agent token for "${identity.agentId}" acts only as that agent`);
  }
  const chosen = identity.kind === "agent" ? identity.agentId : agentId;
  if (!chosen) throw badRequest("agentId required");
  if (!findAgent(config, chosen)) throw badRequest(`agentId: unknown agent "${chosen}"`);
  return chosen;
}

/**
 * The canonical key a REST path or body names (`field`: what an error calls it). Agent tokens may use
 * legacy keys (read as their own agent) and reach only their own agent's sessions; operators give a
 * full key or an agent.
 */
export function canonicalKeyForRequest(
  identity: Identity,
  config: SwitchboardConfig,
  rawKey: string,
  agentId?: string,
  field = "key",
): string {
  // A grant's scope is checked by the grant route allowlist (src/routes/grant-routes.ts) before this.
  if (identity.kind === "grant") return grantSessionKey(identity, config, rawKey);
  assertOperatorApiAccess(identity);
  const options = keyOptionsOf(config);
  const owner =
    parseSessionKey(rawKey, options)?.agentId ??
    agentId ??
    (identity.kind === "agent" ? identity.agentId : undefined);
  if (!owner) throw badRequest(`${field}: use a full agent:<agentId>:… session key`);
  const key = canonicalizeKeyInput(rawKey, owner, options);
  if (!key.ok) throw badRequest(`${field}: ${key.error}`);
  const keyAgent = parseSessionKey(key.key, options)?.agentId ?? owner;
  if (identity.kind === "agent" && keyAgent !== identity.agentId) {
    throw new AppError(
      "forbidden",
      `an agent token for "${identity.agentId}" reaches only that agent's sessions`,
    );
  }
  if (agentId && keyAgent !== agentId)
    throw badRequest(`${field}: belongs to agent "${keyAgent}", not "${agentId}"`);
  if (!findAgent(config, keyAgent)) throw badRequest(`${field}: unknown agent "${keyAgent}"`);
  return key.key;
}

/**
 * The sessions a REST caller may see, in the form the index queries filter on: an operator every one,
 * an agent token its agent's, a grant (or a run token) only its own session.
 */
export function restScope(identity: Identity): VisibleScope {
  if (identity.kind === "operator") return { type: "all" };
  if (identity.kind === "agent") return { type: "agents", agentIds: [identity.agentId] };
  const sessionKey = identity.kind === "grant" ? identity.sessionKey : identity.claims.sessionKey;
  return { type: "self", sessionKey, agentId: sessionKey.split(":")[1] ?? "" };
}
