import { z } from "zod";
import { displayKey } from "../keys";
import { checkSessionVisible, visibilityConfigOf } from "../policy/visibility";
import type { HistoryPage, Result } from "../session/api";
import { flooredNumber, sessionKeyParam } from "./args";
import { parseSessionReference, referenceNotFound, resolveSessionReference } from "./resolve-session";
import { defineTool } from "./types";

const DEFAULT_LIMIT = 200;
const MAX_LIMIT = 1000;

export const sessionsHistory = defineTool({
  name: "sessions_history",
  description:
    "Read the newest messages of a session you can see, made safe: reasoning and tool payloads removed, secrets masked, long texts cut.",
  schema: z.object({
    sessionKey: sessionKeyParam().describe("session key, 'main', 'current' or a sessionId"),
    limit: flooredNumber()
      .optional()
      .describe(`newest N messages, default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT}`),
    offset: flooredNumber()
      .optional()
      .describe("skip this many of the newest messages (nextOffset pages back)"),
    includeTools: z.boolean().optional().describe("include toolResult/tool messages (default false)"),
  }),
  async handler(ctx, params) {
    const request = {
      limit: Math.min(MAX_LIMIT, Math.max(1, params.limit ?? DEFAULT_LIMIT)),
      offset: Math.max(0, params.offset ?? 0),
      includeTools: params.includeTools ?? false,
    };
    const reference = parseSessionReference(ctx, params.sessionKey);
    if (!reference.ok) return { status: reference.status, error: reference.error };
    let sessionKey = reference.key;
    let page: Result<HistoryPage>;
    if (reference.keyOnly) {
      // Only this key can match: its object checks visibility against its own record and reads the
      // page in one call, with no index lookup first.
      const viewer = { requester: ctx.requester, visibility: visibilityConfigOf(ctx.config) };
      page = await ctx.session(sessionKey).history(request, viewer);
      if (!page.ok && page.code === "forbidden") return { status: "forbidden", error: page.message };
      if (!page.ok) {
        const missing = referenceNotFound(params.sessionKey);
        return { status: missing.status, error: missing.error };
      }
    } else {
      const lookup = await resolveSessionReference(ctx, params.sessionKey);
      if (!lookup.ok) return { status: lookup.status, error: lookup.error };
      const visible = checkSessionVisible(ctx.config, ctx.requester, lookup.session, "history");
      if (!visible.ok) return { status: visible.status, error: visible.error };
      sessionKey = lookup.session.sessionKey;
      page = await ctx.session(sessionKey).history(request);
      if (!page.ok) return { status: "error", error: `Session not found: ${params.sessionKey}.` };
    }
    const {
      messages,
      droppedMessages,
      contentTruncated,
      contentRedacted,
      bytes,
      hasMore,
      nextOffset,
      totalMessages,
    } = page.value;
    return {
      sessionKey: displayKey(sessionKey, ctx.keyOptions),
      messages,
      truncated: droppedMessages || contentTruncated,
      droppedMessages,
      contentTruncated,
      contentRedacted,
      bytes,
      hasMore,
      ...(nextOffset !== undefined ? { nextOffset } : {}),
      totalMessages,
    };
  },
});
