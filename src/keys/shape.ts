import { AGENT_ID_PATTERN } from "./agent-id";
import { splitCanonicalParts } from "./parse";
import { isCronRest, isHookRest, isNodeRest, isSubagentRest, parseChatRest } from "./rest";
import type { KeyOptions } from "./types";

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * True for a canonical key or a known legacy unprefixed shape; anything else (`random-slug`) may be a
 * sessionId. Pass the options so a custom mainKey counts as a key too.
 */
export function looksLikeSessionKey(input: string, options?: Pick<KeyOptions, "mainKey">): boolean {
  const lowered = input.trim().toLowerCase();
  if (lowered === "") return false;
  const parts = splitCanonicalParts(lowered);
  if (parts) return AGENT_ID_PATTERN.test(parts.agentId) && Boolean(parts.rest);
  return (
    lowered === "main" ||
    lowered === options?.mainKey ||
    parseChatRest(lowered) !== undefined ||
    isCronRest(lowered) ||
    isHookRest(lowered) ||
    isNodeRest(lowered) ||
    isSubagentRest(lowered)
  );
}

/** True for a UUID in the 8-4-4-4-12 hex form (any version, any case), as sessionIds are. */
export function isUuidLike(input: string): boolean {
  return UUID_PATTERN.test(input.trim());
}
