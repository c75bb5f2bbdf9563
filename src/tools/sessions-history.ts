import { z } from "zod";
import { displayKey } from "../keys";
import { checkSessionVisible } from "../policy/visibility";
import { flooredNumber } from "./args";
import { resolveSessionReference } from "./resolve-session";
import { defineTool } from "./types";

const DEFAULT_LIMIT = 200;
const MAX_LIMIT = 1000;

export const sessionsHistory = defineTool({
  name: "sessions_history",
  description:
    "Read the newest messages of a session you can see, made safe: reasoning and tool payloads removed, secrets masked, long texts cut.",
  schema: z.object({
    sessionKey: z.string().describe("session key, 'main', 'current' or a sessionId"),
    limit: flooredNumber()
      .optional()
      .describe(`newest N messages, default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT}`),
    offset: flooredNumber()
      .optional()
      .describe("skip this many of the newest messages (nextOffset pages back)"),
    includeTools: z.boolean().optional().describe("include toolResult/tool messages (default false)"),
  }),
  async handler(ctx, params) {
    const lookup = await resolveSessionReference(ctx, params.sessionKey);
    if (!lookup.ok) return { status: lookup.status, error: lookup.error };
    const visible = checkSessionVisible(ctx.config, ctx.requester, lookup.session, "history");
    if (!visible.ok) return { status: visible.status, error: visible.error };
    const page = await ctx.session(lookup.session.sessionKey).history({
      limit: Math.min(MAX_LIMIT, Math.max(1, params.limit ?? DEFAULT_LIMIT)),
      offset: Math.max(0, params.offset ?? 0),
      includeTools: params.includeTools ?? false,
    });
    if (!page.ok) return { status: "error", error: `Session not found: ${params.sessionKey}.` };
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
      sessionKey: displayKey(lookup.session.sessionKey, ctx.keyOptions),
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
