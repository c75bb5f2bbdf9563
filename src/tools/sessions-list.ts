import { z } from "zod";
import type { ListQuery } from "../index-db/list";
import { listSessionsWithChildren } from "../index-db/list-page";
import { displayKey, normalizeAgentId } from "../keys";
import { MAX_LIST_OFFSET, MAX_SEARCH_CHARS } from "../limits";
import { type VisibleScope, visibleScope } from "../policy/visibility";
import { toSessionRow } from "../session/api";
import { hasControlCharacter } from "../validation";
import { flooredNumber, labelParam } from "./args";
import { encodeListCursor, listCursorParam } from "./list-cursor";
import { defineTool } from "./types";

/** The session kinds sessions_list filters on (SPEC §5.1). */
export const SESSION_KINDS = ["main", "group", "cron", "hook", "node", "other"] as const;
const KINDS: ReadonlySet<string> = new Set(SESSION_KINDS);
const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));

/** SPEC §17's `archived` filter; `includeArchived: true` is the older spelling of `"all"`. */
function archivedFilter(params: { archived?: boolean | "all"; includeArchived?: boolean }) {
  const archived = params.archived ?? (params.includeArchived ? "all" : false);
  return archived === false ? {} : { archived };
}

/** sessions_list's params (SPEC §5.1, §17); the console's sessions list reads the same filters. */
export const sessionsListSchema = z
  .object({
    kinds: z.array(z.string()).optional().describe("any of main, group, cron, hook, node, other"),
    limit: flooredNumber().optional().describe("rows per page, default 50, at most 200"),
    activeMinutes: flooredNumber().optional().describe("only sessions updated in the last N minutes"),
    messageLimit: flooredNumber().optional().describe("0–20 recent messages per row (tool messages removed)"),
    label: labelParam().optional().describe("exact label"),
    agentId: z.string().optional(),
    // A control character (NUL) would break the FTS5 MATCH string; none is in anything searched.
    search: z
      .string()
      .max(MAX_SEARCH_CHARS)
      .refine((value) => !hasControlCharacter(value), "must not contain control characters")
      .optional()
      .describe("case-insensitive match over display name, label, subject, sessionId, key"),
    includeDerivedTitles: z.boolean().optional(),
    includeLastMessage: z.boolean().optional(),
    archived: z
      .union([z.boolean(), z.literal("all")])
      .optional()
      .describe('false (default): unarchived sessions; true: archived only; "all": both'),
    includeArchived: z.boolean().optional().describe('true: the same as archived "all"'),
    cursor: listCursorParam.optional().describe("nextCursor from the previous page"),
    offset: flooredNumber()
      .pipe(z.number().min(0).max(MAX_LIST_OFFSET))
      .optional()
      .describe(`skip this many rows (nextOffset pages on; at most ${MAX_LIST_OFFSET}, then use cursor)`),
  })
  .superRefine((params, ctx) => {
    if (params.cursor !== undefined && params.offset !== undefined)
      ctx.addIssue({ code: "custom", path: ["offset"], message: "offset cannot be combined with cursor" });
  });
export type SessionsListParams = z.output<typeof sessionsListSchema>;

/** The index query of sessions_list's filters and paging, for a caller who sees `scope`. */
export function listQueryOf(params: SessionsListParams, scope: VisibleScope): ListQuery {
  const kinds = (params.kinds ?? [])
    .map((kind) => kind.trim().toLowerCase())
    .filter((kind) => KINDS.has(kind));
  const agentId =
    params.agentId === undefined ? undefined : (normalizeAgentId(params.agentId) ?? params.agentId);
  return {
    scope,
    limit: clamp(params.limit ?? 50, 1, 200),
    ...(kinds.length > 0 ? { kinds } : {}),
    ...(agentId ? { agentId } : {}),
    ...(params.label ? { label: params.label } : {}),
    ...(params.search ? { search: params.search } : {}),
    ...(params.activeMinutes !== undefined && params.activeMinutes >= 1
      ? { updatedSince: Date.now() - params.activeMinutes * 60_000 }
      : {}),
    ...archivedFilter(params),
    ...(params.cursor ? { cursor: params.cursor } : {}),
    ...(params.offset ? { offset: params.offset } : {}),
  };
}

export const sessionsList = defineTool({
  name: "sessions_list",
  description:
    "List the sessions you can see, newest activity first. Filter by kinds, label, agentId, activeMinutes, search or archived; page with cursor or offset.",
  schema: sessionsListSchema,
  async handler(ctx, params) {
    const messageLimit = clamp(params.messageLimit ?? 0, 0, 20);
    const scope = visibleScope(ctx.config, ctx.requester);
    const query = listQueryOf(params, scope);
    const { limit } = query;
    // The page's children come filtered by the caller's own visibility: a key the caller could not list
    // is not leaked through its parent's row (README "Configuration", choices).
    const { page, children } = await listSessionsWithChildren(ctx.shards, query);
    const sessions = await Promise.all(
      page.rows.map(async (columns) => {
        const { derivedTitle, lastMessagePreview, ...row } = toSessionRow(columns, ctx.keyOptions);
        const childKeys = children.get(String(columns.session_key));
        if (childKeys) row.childSessions = childKeys.map((key) => displayKey(key, ctx.keyOptions));
        const messages =
          messageLimit > 0
            ? await ctx.session(String(columns.session_key)).recentMessages(messageLimit)
            : undefined;
        return {
          ...row,
          ...(params.includeDerivedTitles && derivedTitle ? { derivedTitle } : {}),
          ...(params.includeLastMessage && lastMessagePreview ? { lastMessagePreview } : {}),
          ...(messages ? { messages } : {}),
        };
      }),
    );
    return {
      count: sessions.length,
      sessions,
      hasMore: page.hasMore,
      limitApplied: limit,
      ...(page.nextCursor ? { nextCursor: encodeListCursor(page.nextCursor) } : {}),
      // Counted from the newest session, so not after a cursor (whose pages start elsewhere).
      ...(page.hasMore && !params.cursor ? { nextOffset: (params.offset ?? 0) + sessions.length } : {}),
    };
  },
});
