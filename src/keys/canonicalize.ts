import { AGENT_ID_PATTERN, normalizeAgentId } from "./agent-id";
import { keyInputProblem } from "./bounds";
import { splitCanonicalParts } from "./parse";
import { GLOBAL_REST, parseChatRest, RESERVED_RESTS } from "./rest";
import type { KeyInputResult, KeyOptions } from "./types";

/**
 * Turns a caller's key reference into the canonical stored key: `main` and legacy unprefixed shapes
 * resolve against the requester's agent; reserved keys, malformed agent ids, control characters and
 * keys over MAX_SESSION_KEY_BYTES (as given or once canonical) are refused.
 */
export function canonicalizeKeyInput(
  input: string,
  requesterAgentId: string,
  options: KeyOptions,
): KeyInputResult {
  const trimmed = input.trim();
  if (trimmed === "") return { ok: false, error: "session key is empty" };
  const problem = keyInputProblem(trimmed);
  if (problem) return { ok: false, error: problem };

  const parts = splitCanonicalParts(trimmed);
  if (parts) {
    const agentId = parts.agentId.toLowerCase();
    if (!AGENT_ID_PATTERN.test(agentId)) {
      return { ok: false, error: `invalid agent id "${parts.agentId}" in session key "${trimmed}"` };
    }
    if (!parts.rest) {
      return { ok: false, error: `session key "${trimmed}" names no session after the agent id` };
    }
    return resolveRest(agentId, parts.rest.toLowerCase(), options);
  }

  const requester = normalizeAgentId(requesterAgentId);
  if (requester === undefined) {
    return { ok: false, error: `invalid requester agent id "${requesterAgentId}"` };
  }
  return resolveRest(requester, trimmed.toLowerCase(), options);
}

function resolveRest(agentId: string, rest: string, options: KeyOptions): KeyInputResult {
  if (RESERVED_RESTS.has(rest)) {
    return { ok: false, error: `session key "${rest}" is reserved and cannot be addressed` };
  }
  const key = `agent:${agentId}:${storedRest(rest, options)}`;
  // The agent prefix of a legacy key, or lower-casing, can take a key past the bound.
  const problem = keyInputProblem(key);
  return problem ? { ok: false, error: problem } : { ok: true, key };
}

/** An agent's main session key (the agent id already valid): what `main` canonicalizes to for it. */
export function mainSessionKey(agentId: string, options: KeyOptions): string {
  return `agent:${agentId}:${storedRest("main", options)}`;
}

// The literal `main` always means the agent's main session, even under a custom mainKey; in global
// scope that session and every direct chat live under the internal `global` rest.
function storedRest(rest: string, options: KeyOptions): string {
  const isMain = rest === "main" || rest === options.mainKey;
  if (options.scope === "global") {
    if (isMain || parseChatRest(rest)?.chatType === "direct") return GLOBAL_REST;
    return rest;
  }
  return isMain ? options.mainKey : rest;
}
