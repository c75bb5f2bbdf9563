import { z } from "zod";
import { displayKey, type KeyOptions } from "../keys";
import { checkSessionVisible } from "../policy/visibility";
import { NO_PENDING_INPUTS, type Result, type SessionHistory } from "../session/api";
import { JsonText } from "../text/json-text";
import { flooredNumber, sessionKeyParam } from "./args";
import {
  failureOf,
  implicitSession,
  parseSessionReference,
  referenceNotFound,
  resolveSessionReference,
  viewerOf,
} from "./resolve-session";
import { defineTool, type ToolContext } from "./types";

export const DEFAULT_HISTORY_LIMIT = 200;
export const MAX_HISTORY_LIMIT = 1000;

/** The page of a session with no messages: nothing dropped, cut or masked; `[]` is 2 bytes. */
const EMPTY_PAGE: SessionHistory = {
  messagesJson: "[]",
  droppedMessages: false,
  contentTruncated: false,
  contentRedacted: false,
  bytes: 2,
  hasMore: false,
  totalMessages: 0,
  pendingInputs: NO_PENDING_INPUTS,
};

/** The tool's answer for a page of a session (SPEC §5.2 result); `GET /v1/sessions/{key}/history` too. */
export function historyResult(keyOptions: KeyOptions, sessionKey: string, page: SessionHistory) {
  const {
    messagesJson,
    droppedMessages,
    contentTruncated,
    contentRedacted,
    bytes,
    hasMore,
    nextOffset,
    totalMessages,
    historyGap,
    pendingInputs,
  } = page;
  return {
    sessionKey: displayKey(sessionKey, keyOptions),
    // Written into the answer as read from storage (JsonText): 200 messages are never parsed on the way.
    messages: new JsonText(messagesJson),
    truncated: droppedMessages || contentTruncated,
    droppedMessages,
    contentTruncated,
    contentRedacted,
    bytes,
    hasMore,
    ...(nextOffset !== undefined ? { nextOffset } : {}),
    totalMessages,
    ...(historyGap ? { historyGap } : {}),
    // Accepted messages whose runs have not started (OpenClaw's field): on the page, not yet answered.
    pendingInputs,
  };
}

/**
 * SPEC §12: the requester's own (or its agent's main) session, never written, reads as an empty page
 * once visibility allows it; undefined for any other missing session, which stays an error.
 */
function neverWritten(ctx: ToolContext, sessionKey: string) {
  const target = implicitSession(ctx, sessionKey);
  if (!target) return undefined;
  const visible = checkSessionVisible(ctx.config, ctx.requester, target, "history");
  if (!visible.ok) return { status: visible.status, error: visible.error };
  return historyResult(ctx.keyOptions, sessionKey, EMPTY_PAGE);
}

export const sessionsHistory = defineTool({
  name: "sessions_history",
  description:
    "Read the newest messages of a session you can see, made safe: reasoning and tool payloads removed, secrets masked, long texts cut.",
  schema: z.object({
    sessionKey: sessionKeyParam().describe("session key, 'main', 'current' or a sessionId"),
    limit: flooredNumber()
      .optional()
      .describe(`newest N messages, default ${DEFAULT_HISTORY_LIMIT}, at most ${MAX_HISTORY_LIMIT}`),
    offset: flooredNumber()
      .optional()
      .describe("skip this many of the newest messages (nextOffset pages back)"),
    includeTools: z.boolean().optional().describe("include toolResult/tool messages (default false)"),
  }),
  async handler(ctx, params) {
    const request = {
      limit: Math.min(MAX_HISTORY_LIMIT, Math.max(1, params.limit ?? DEFAULT_HISTORY_LIMIT)),
      offset: Math.max(0, params.offset ?? 0),
      includeTools: params.includeTools ?? false,
    };
    const reference = parseSessionReference(ctx, params.sessionKey);
    if (!reference.ok) return { status: reference.status, error: reference.error };
    let sessionKey = reference.key;
    let page: Result<SessionHistory>;
    if (reference.keyOnly) {
      // Only this key can match: its object checks visibility against its own record and reads the
      // page in one call, with no index lookup first.
      page = await ctx.session(sessionKey).history(request, viewerOf(ctx));
      if (!page.ok && page.code === "forbidden") return { status: "forbidden", error: page.message };
      if (!page.ok) return neverWritten(ctx, sessionKey) ?? failureOf(referenceNotFound(params.sessionKey));
    } else {
      const lookup = await resolveSessionReference(ctx, params.sessionKey);
      if (!lookup.ok) return neverWritten(ctx, sessionKey) ?? failureOf(lookup);
      const visible = checkSessionVisible(ctx.config, ctx.requester, lookup.session, "history");
      if (!visible.ok) return { status: visible.status, error: visible.error };
      sessionKey = lookup.session.sessionKey;
      page = await ctx.session(sessionKey).history(request);
      if (!page.ok) return neverWritten(ctx, sessionKey) ?? failureOf(referenceNotFound(params.sessionKey));
    }
    return historyResult(ctx.keyOptions, sessionKey, page.value);
  },
});
