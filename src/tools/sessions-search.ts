import { z } from "zod";
import { fittingCount } from "../history/byte-cap";
import type { SearchRow } from "../index-db/search";
import { searchShards } from "../index-db/search-page";
import type { IndexShards } from "../index-db/shards";
import { displayKey, type KeyOptions } from "../keys";
import { checkSessionVisible, type VisibleScope, visibleScope } from "../policy/visibility";
import { flooredNumber, sessionKeyParam } from "./args";
import { encodeJsonCursor, jsonCursorParam } from "./list-cursor";
import { implicitSession, parseSessionReference, resolveSessionReference } from "./resolve-session";
import { matchExpression, queryTerms, snippetOf } from "./search-snippet";
import { defineTool, type ToolContext, type ToolFailure } from "./types";

/** OpenClaw's limits (SESSIONS_SEARCH_*): the query, the page, and the result's JSON. */
export const MAX_QUERY_CHARS = 4096;
export const MAX_SEARCH_LIMIT = 25;
export const DEFAULT_SEARCH_LIMIT = 10;
export const MAX_SEARCH_RESULT_BYTES = 32_768;

const INDEXING_WARNING =
  "Transcript indexing is in progress; results may be incomplete. Retry sessions_search shortly.";
const EMPTY_QUERY = "query must not be empty";
const BAD_LIMIT = "limit must be a positive integer";

/**
 * A page's cursor: the first page's rowid high-water mark (messages indexed since stay out, so pages do
 * not shift) and how many hits came before the next page (src/index-db/search.ts says why not a keyset).
 */
const count = z.number().int().nonnegative();
// `h` and `o`: one mark and offset, or one of each per shard when the pages merge several shards
// (src/index-db/search-page.ts).
const cursorSchema = z.strictObject({
  h: z.union([count, z.array(count).max(256)]),
  o: z.union([z.number().int().min(1), z.array(count).max(256)]),
});

const searchCursorParam = jsonCursorParam(
  cursorSchema,
  "pass nextCursor from a previous sessions_search with the same query",
).transform((cursor) => ({ highWater: cursor.h, offset: cursor.o }));

type Target = { ok: true; sessionKey?: string; neverWritten?: true } | ({ ok: false } & ToolFailure);

/** The `sessionKey` param, resolved and checked exactly as sessions_history does (same errors). */
async function resolveTarget(ctx: ToolContext, input: string): Promise<Target> {
  const reference = parseSessionReference(ctx, input);
  if (!reference.ok) return reference;
  const lookup = await resolveSessionReference(ctx, input);
  // SPEC §12: the requester's own or main session, never written, is there for a reader, and empty.
  const implicit = lookup.ok ? undefined : implicitSession(ctx, reference.key);
  if (!lookup.ok && !implicit) return lookup;
  const target = lookup.ok ? lookup.session : implicit;
  const visible = target && checkSessionVisible(ctx.config, ctx.requester, target, "history");
  if (visible && !visible.ok) return { ok: false, status: visible.status, error: visible.error };
  return lookup.ok ? { ok: true, sessionKey: lookup.session.sessionKey } : { ok: true, neverWritten: true };
}

export const sessionsSearch = defineTool({
  name: "sessions_search",
  description:
    "Search the text of the sessions you can see (every word required), best match first. Snippets are made safe like sessions_history; page with cursor.",
  schema: z.object({
    query: z
      .string({ error: EMPTY_QUERY })
      .min(1, EMPTY_QUERY)
      .max(MAX_QUERY_CHARS, `query must not exceed ${MAX_QUERY_CHARS} characters`)
      .describe("words to find; each must occur (exact words, no prefixes)"),
    sessionKey: sessionKeyParam()
      .optional()
      .describe("only this session (key, 'main', 'current' or a sessionId)"),
    limit: flooredNumber()
      .pipe(z.number().min(1, BAD_LIMIT).max(MAX_SEARCH_LIMIT, BAD_LIMIT))
      .optional()
      .describe(`hits per page, default ${DEFAULT_SEARCH_LIMIT}, at most ${MAX_SEARCH_LIMIT}`),
    includeTools: z.boolean().optional().describe("also search tool results (default false)"),
    role: z.enum(["user", "assistant"]).optional().describe("only messages of this role"),
    cursor: searchCursorParam.optional().describe("nextCursor from the previous page"),
  }),
  async handler(ctx, params) {
    // Only punctuation: no word to find, whatever the session (searchSessions finds nothing either).
    if (queryTerms(params.query).length === 0) return { results: [] };
    const target = params.sessionKey ? await resolveTarget(ctx, params.sessionKey) : { ok: true as const };
    if (!target.ok) return { status: target.status, error: target.error };
    if ("neverWritten" in target) return { results: [] };
    const { sessionKey: _, ...filters } = params;
    const page = await searchSessions(ctx.shards, ctx.keyOptions, visibleScope(ctx.config, ctx.requester), {
      ...filters,
      ...(target.sessionKey ? { sessionKey: target.sessionKey } : {}),
    });
    return {
      results: page.hits.map(({ canonicalKey: _, ...hit }) => hit),
      ...(page.truncated ? { truncated: true } : {}),
      ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
      ...(page.indexing ? { indexing: true, warning: INDEXING_WARNING } : {}),
    };
  },
});

export type SessionsSearchParams = z.output<typeof sessionsSearch.schema>;

/** A hit as sessions_search returns it, plus its session's canonical key (the console links by it). */
export type SearchHit = ReturnType<typeof hitOf> & { canonicalKey: string };

const hitOf = (row: SearchRow, terms: readonly string[], keyOptions: KeyOptions) => ({
  sessionKey: displayKey(row.session_key, keyOptions),
  sessionId: row.session_id,
  messageId: row.message_id,
  role: row.role,
  timestamp: row.timestamp,
  snippet: snippetOf(row.text, terms),
  score: -row.rank,
});

/**
 * One page of sessions_search over `scope`, `sessionKey` already resolved (canonical): the hits that fit
 * OpenClaw's result size, and the cursor of the next page. The tool and the operator console share it.
 */
export async function searchSessions(
  shards: IndexShards,
  keyOptions: KeyOptions,
  scope: VisibleScope,
  params: Omit<SessionsSearchParams, "sessionKey"> & { sessionKey?: string },
): Promise<{ hits: SearchHit[]; truncated?: true; nextCursor?: string; indexing?: true }> {
  const terms = queryTerms(params.query);
  // Only punctuation: no word to find (an FTS5 phrase without a token matches nothing anyway).
  if (terms.length === 0) return { hits: [] };
  const page = await searchShards(shards, {
    scope,
    match: matchExpression(terms),
    ...(params.sessionKey ? { sessionKey: params.sessionKey } : {}),
    ...(params.role ? { role: params.role } : {}),
    includeTools: params.includeTools ?? false,
    limit: params.limit ?? DEFAULT_SEARCH_LIMIT,
    ...(params.cursor ?? {}),
  });
  const hits = page.rows.map((row) => hitOf(row, terms, keyOptions));
  // OpenClaw's count: the results array's JSON, whole hits only.
  const fitting = fittingCount(hits, MAX_SEARCH_RESULT_BYTES);
  const more = page.hasMore || fitting < hits.length;
  const next = page.offsetAfter(fitting);
  return {
    hits: hits
      .slice(0, fitting)
      .map((hit, at) => ({ ...hit, canonicalKey: page.rows[at]?.session_key ?? "" })),
    ...(more ? { truncated: true } : {}),
    ...(more && fitting > 0 ? { nextCursor: encodeJsonCursor({ h: page.highWater, o: next }) } : {}),
    ...(page.indexing ? { indexing: true } : {}),
  };
}
