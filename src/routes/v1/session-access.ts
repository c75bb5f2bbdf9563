import type { Identity } from "../../auth/identity";
import { findAgent } from "../../config/agents";
import { keyOptionsOf } from "../../config/key-options";
import type { SwitchboardConfig } from "../../config/schema";
import { AppError, badRequest } from "../../errors";
import { canonicalizeKeyInput, parseSessionKey } from "../../keys";

/** The operator API takes operator tokens, and agent tokens for their own agent's sessions (SPEC §9). */
export function assertOperatorApiAccess(identity: Identity): void {
  if (identity.kind === "run") throw new AppError("forbidden", "run tokens may not use the sessions API");
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
 * The canonical key a REST path or body names. Agent tokens may use legacy keys (read as their own
 * agent) and reach only their own agent's sessions; operators give a full key or an agent.
 */
export function canonicalKeyForRequest(
  identity: Identity,
  config: SwitchboardConfig,
  rawKey: string,
  agentId?: string,
): string {
  assertOperatorApiAccess(identity);
  const options = keyOptionsOf(config);
  const owner =
    parseSessionKey(rawKey, options)?.agentId ??
    agentId ??
    (identity.kind === "agent" ? identity.agentId : undefined);
  if (!owner) throw badRequest("key: use a full agent:<agentId>:… session key");
  const key = canonicalizeKeyInput(rawKey, owner, options);
  if (!key.ok) throw badRequest(`key: ${key.error}`);
  const keyAgent = parseSessionKey(key.key, options)?.agentId ?? owner;
  if (identity.kind === "agent" && keyAgent !== identity.agentId) {
    throw new AppError(
      "forbidden",
      `an agent token for "${identity.agentId}" reaches only that agent's sessions`,
    );
  }
  if (agentId && keyAgent !== agentId)
    throw badRequest(`key: belongs to agent "${keyAgent}", not "${agentId}"`);
  if (!findAgent(config, keyAgent)) throw badRequest(`key: unknown agent "${keyAgent}"`);
  return key.key;
}
