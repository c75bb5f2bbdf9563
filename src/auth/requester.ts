import { findAgent } from "../config/agents";
import { keyOptionsOf } from "../config/key-options";
import type { SwitchboardConfig } from "../config/schema";
import { findSessionByKey } from "../index-db/lookup";
import type { IndexShards } from "../index-db/shards";
import { canonicalizeKeyInput, keyInputProblem, normalizeAgentId, parseSessionKey } from "../keys";
import type { Requester } from "../policy/requester";
import { effectiveVisibility } from "../policy/visibility";
import type { Identity } from "./identity";

export type RequesterResult =
  | { ok: true; requester: Requester }
  | { ok: false; code: "bad_request" | "forbidden"; message: string };

/** What a request names as its requester: a session key and, for legacy keys, the agent. */
export interface NamedRequester {
  sessionKey?: string;
  agentId?: string;
}

/** The requester key a credential may act as (SPEC §3), before any storage is read. */
function requesterKey(
  identity: Identity,
  named: NamedRequester,
  config: SwitchboardConfig,
): { ok: true; sessionKey: string } | Extract<RequesterResult, { ok: false }> {
  const options = keyOptionsOf(config);
  // A key that can never be one is bad input whoever names it (X-Switchboard-Session or body sessionKey).
  const problem = named.sessionKey === undefined ? undefined : keyInputProblem(named.sessionKey.trim());
  if (problem) return { ok: false, code: "bad_request", message: `sessionKey: ${problem}` };
  // A grant acts as no requester at all (SPEC §18): it must never fall through to the operator's rules.
  if (identity.kind === "grant")
    return { ok: false, code: "forbidden", message: "a grant token may not call tools" };
  if (identity.kind === "run") {
    const own = identity.claims.sessionKey;
    // "current" is the caller's own session (SPEC §1), which for a run token is the run's session.
    if (!named.sessionKey || named.sessionKey.trim() === "current") return { ok: true, sessionKey: own };
    const asKey = canonicalizeKeyInput(named.sessionKey, identity.claims.agentId, options);
    if (asKey.ok && asKey.key === own) return { ok: true, sessionKey: own };
    return { ok: false, code: "forbidden", message: "a run token acts only as its own run's session" };
  }
  if (identity.kind === "agent") {
    const key = canonicalizeKeyInput(named.sessionKey ?? config.session.mainKey, identity.agentId, options);
    if (!key.ok) return { ok: false, code: "bad_request", message: `sessionKey: ${key.error}` };
    if (parseSessionKey(key.key, options)?.agentId !== identity.agentId) {
      return {
        ok: false,
        code: "forbidden",
        message: `an agent token for "${identity.agentId}" acts only as that agent's sessions`,
      };
    }
    return { ok: true, sessionKey: key.key };
  }
  if (!named.sessionKey) {
    return {
      ok: false,
      code: "bad_request",
      message:
        "sessionKey required: operator tool calls must name the requester session (body sessionKey or X-Switchboard-Session)",
    };
  }
  const agentId = named.agentId ? normalizeAgentId(named.agentId) : undefined;
  if (named.agentId && !agentId)
    return { ok: false, code: "bad_request", message: "agentId: invalid agent id" };
  const canonical = parseSessionKey(named.sessionKey, options);
  if (canonical && agentId && canonical.agentId !== agentId) {
    return {
      ok: false,
      code: "bad_request",
      message: `agentId: "${agentId}" does not match the session key's agent "${canonical.agentId}"`,
    };
  }
  const owner = canonical?.agentId ?? agentId;
  if (!owner) {
    return {
      ok: false,
      code: "bad_request",
      message: "sessionKey: use a full agent:<agentId>:… key, or give agentId",
    };
  }
  const key = canonicalizeKeyInput(named.sessionKey, owner, options);
  return key.ok
    ? { ok: true, sessionKey: key.key }
    : { ok: false, code: "bad_request", message: `sessionKey: ${key.error}` };
}

/** Fixes the requester session of a tool call from the credential and what the request names. */
export async function resolveRequester(
  identity: Identity,
  named: NamedRequester,
  config: SwitchboardConfig,
  shards: IndexShards,
): Promise<RequesterResult> {
  const key = requesterKey(identity, named, config);
  if (!key.ok) return key;
  const parsed = parseSessionKey(key.sessionKey, keyOptionsOf(config));
  if (!parsed) return { ok: false, code: "bad_request", message: "sessionKey: not a session key" };
  const agent = findAgent(config, parsed.agentId);
  if (!agent) return { ok: false, code: "forbidden", message: `agent "${parsed.agentId}" is not configured` };
  if (identity.kind === "run") {
    const { claims } = identity;
    return {
      ok: true,
      requester: {
        agentId: claims.agentId,
        sessionKey: claims.sessionKey,
        ...(claims.sessionId ? { sessionId: claims.sessionId } : {}),
        depth: claims.depth,
        sandboxed: claims.sandboxed,
        isSubagent: claims.depth > 0,
        runId: claims.runId,
        ...(claims.hop !== undefined ? { hop: claims.hop } : {}),
        ...(claims.structuredOutput ? { structuredOutput: true } : {}),
        ...(claims.collector ? { collector: true } : {}),
      },
    };
  }
  const requester: Requester = {
    agentId: parsed.agentId,
    sessionKey: key.sessionKey,
    depth: 0,
    sandboxed: agent.sandbox,
    isSubagent: parsed.isSubagent,
  };
  // Depth decides the sub-agent tool policy, so it comes from the index, never from the request; the
  // session's id decides what visibility `tree` reaches (SPEC §23: its own children, not an earlier
  // session's of its key). Only these need the index, so other requesters cost no lookup.
  if (!parsed.isSubagent && effectiveVisibility(config, requester) !== "tree") return { ok: true, requester };
  const indexed = await findSessionByKey(shards, key.sessionKey);
  if (parsed.isSubagent) requester.depth = indexed?.spawnDepth ?? 1;
  if (indexed) requester.sessionId = indexed.sessionId;
  return { ok: true, requester };
}
