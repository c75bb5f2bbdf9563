import { AGENT_ID_PATTERN } from "./agent-id";
import { classifyKind } from "./kind";
import { isCronRunRest, isSubagentRest, parseChatRest, RESERVED_RESTS } from "./rest";
import type { KeyOptions, ParsedSessionKey } from "./types";

const CANONICAL_PREFIX = "agent:";

/** The raw parts of an `agent:…` string; `rest` is undefined when there is no second colon. */
export interface CanonicalParts {
  agentId: string;
  rest: string | undefined;
}

/** Splits trimmed input starting with `agent:` (any case), keeping its case; undefined for anything else. */
export function splitCanonicalParts(input: string): CanonicalParts | undefined {
  const trimmed = input.trim();
  if (trimmed.slice(0, CANONICAL_PREFIX.length).toLowerCase() !== CANONICAL_PREFIX) return undefined;
  const afterPrefix = trimmed.slice(CANONICAL_PREFIX.length);
  const separator = afterPrefix.indexOf(":");
  if (separator < 0) return { agentId: afterPrefix, rest: undefined };
  return { agentId: afterPrefix.slice(0, separator), rest: afterPrefix.slice(separator + 1) };
}

/** Parses a canonical key (case-insensitive); undefined for legacy or malformed input. */
export function parseSessionKey(key: string, options: KeyOptions): ParsedSessionKey | undefined {
  const parts = splitCanonicalParts(key.toLowerCase());
  if (!parts || !AGENT_ID_PATTERN.test(parts.agentId) || !parts.rest) return undefined;
  const { agentId, rest } = parts;
  const chat = parseChatRest(rest);
  return {
    key: `${CANONICAL_PREFIX}${agentId}:${rest}`,
    agentId,
    rest,
    kind: classifyKind(rest, options),
    ...chat,
    threadScoped: chat?.threadId !== undefined,
    isCronRun: isCronRunRest(rest),
    isSubagent: isSubagentRest(rest),
    isReserved: RESERVED_RESTS.has(rest),
  };
}
