import type { ChatType } from "./types";

// Helpers over the `<rest>` part of a key (after `agent:<id>:`). They expect lower-cased input.

/** The internal rest of the one session all direct chats share when `session.scope = "global"`. */
export const GLOBAL_REST = "global";

/** Rests no caller may address (SPEC §1): the shared global session and the catch-all `unknown`. */
export const RESERVED_RESTS: ReadonlySet<string> = new Set([GLOBAL_REST, "unknown"]);

/** The parts of a `<channel>:<chatType>:<chatId>[:thread|topic:<threadId>]` rest. */
export interface ChatRest {
  channel: string;
  chatType: ChatType;
  chatId: string;
  threadId?: string;
}

// The chat id may itself contain colons (e.g. Matrix room ids), so it is matched lazily and a trailing
// `:thread:<id>` / `:topic:<id>` is preferred as the suffix. Empty segments never match.
const CHAT_REST_PATTERN =
  /^([a-z0-9][a-z0-9_.-]*):(group|channel|direct|dm):([^:]+(?::[^:]+)*?)(?::(?:thread|topic):([^:]+))?$/;

// `dm` is the older spelling of `direct`.
const CHAT_TYPE_BY_WORD: Readonly<Record<string, ChatType>> = {
  group: "group",
  channel: "channel",
  direct: "direct",
  dm: "direct",
};

// Rests with these prefixes belong to internal sessions; they are never read as chat keys, so
// `cron:group:x` stays a cron key rather than a chat on a channel called "cron".
const INTERNAL_PREFIX_PATTERN = /^(?:cron:|hook:|node:|node-|subagent:)/;

/** True for a rest that names a cron job session or one of its runs. */
export function isCronRest(rest: string): boolean {
  return /^cron:./.test(rest);
}

/** True for `cron:<jobId>:run:<runId>`, one execution of a cron job. */
export function isCronRunRest(rest: string): boolean {
  return /^cron:[^:]+:run:[^:]+$/.test(rest);
}

/** True for a rest that names a webhook-triggered session. */
export function isHookRest(rest: string): boolean {
  return /^hook:./.test(rest);
}

/** True for `node-<nodeId>` and `node:<nodeId>`. */
export function isNodeRest(rest: string): boolean {
  return /^node[-:]./.test(rest);
}

/** True for `subagent:<uuid>` and nested `subagent:<uuid>:subagent:<uuid>` rests. */
export function isSubagentRest(rest: string): boolean {
  return /^subagent:./.test(rest);
}

/** Splits a channel chat rest into its parts; undefined when the rest is not one. */
export function parseChatRest(rest: string): ChatRest | undefined {
  if (INTERNAL_PREFIX_PATTERN.test(rest)) return undefined;
  const match = CHAT_REST_PATTERN.exec(rest);
  if (!match) return undefined;
  const [, channel, chatTypeWord, chatId, threadId] = match;
  const chatType = chatTypeWord === undefined ? undefined : CHAT_TYPE_BY_WORD[chatTypeWord];
  if (channel === undefined || chatType === undefined || chatId === undefined) return undefined;
  return threadId === undefined ? { channel, chatType, chatId } : { channel, chatType, chatId, threadId };
}

/**
 * True for a canonical key of a cron session or run (`agent:<id>:cron:…`): a cron requester, which
 * follows OpenClaw's rules (SPEC §5, §22: no spawn note, no ping-pong, the nested announce prompt).
 */
export function isCronSessionKey(sessionKey: string): boolean {
  const rest = /^agent:[^:]+:(.+)$/i.exec(sessionKey)?.[1];
  return rest !== undefined && isCronRest(rest.toLowerCase());
}
