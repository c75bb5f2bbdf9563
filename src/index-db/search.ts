import type { VisibleScope } from "../policy/visibility";
import { type Clause, visibleCondition } from "./list";
import { agentToken, parentToken, sessionToken } from "./search-scope";
import type { IndexDb } from "./shards";

export interface SearchQuery {
  scope: VisibleScope;
  /** The words' FTS5 expression (every token quoted, all required); the statement adds the scope. */
  match: string;
  /** Only this (visible, canonical) session. */
  sessionKey?: string;
  role?: "user" | "assistant";
  includeTools: boolean;
  limit: number;
  /** The newest message rowid a paged search sees: its first page's, so later messages stay out. */
  highWater?: number;
  /** Hits before the page, in the pinned snapshot. */
  offset?: number;
}

export interface SearchRow {
  session_key: string;
  session_id: string;
  message_id: string;
  role: string;
  timestamp: number;
  text: string;
  rank: number;
}

export interface SearchPage {
  rows: SearchRow[];
  hasMore: boolean;
  /** The rowid high-water mark the page was read at (the cursor keeps it). */
  highWater: number;
  /** A session in the searched scope still has messages waiting to be indexed. */
  indexing: boolean;
  rowsRead: number;
}

const clause = (sql: string, ...params: unknown[]): Clause => ({ sql, params });
/** The clauses joined by AND; an empty one (every session visible) adds no condition. */
function and(clauses: Clause[]): Clause {
  const terms = clauses.filter((c) => c.sql !== "");
  return clause(terms.map((c) => c.sql).join(" AND ") || "1", ...terms.flatMap((c) => c.params));
}

/** The session-index conditions of a search: visibility (SPEC §4 history rules), and the one session. */
function sessionConditions(query: SearchQuery, visible: Clause): Clause[] {
  const conditions = [visible];
  if (query.sessionKey) conditions.push(clause("session_key = ?", query.sessionKey));
  // Without a target: the sessions a listing can show, archived ones included (never cron runs or
  // reserved keys, as OpenClaw searches only listed sessions).
  else conditions.push(clause("list_state IN (0, 1)"));
  return conditions;
}

/**
 * The caller's visibility (SPEC §4 history rules) as one condition over `session_index`, undefined when
 * nothing is visible: the list scope, except that an agents scope binds its agents as one JSON parameter
 * (one per agent would pass D1's 100 parameters with ~94 reachable agents).
 */
export function searchVisibility(scope: VisibleScope): Clause | undefined {
  if (scope.type !== "agents") return visibleCondition(scope);
  if (scope.agentIds.length === 0) return undefined;
  return clause("agent_id IN (SELECT value FROM json_each(?))", JSON.stringify(scope.agentIds));
}

/**
 * The scope tokens (src/index-db/search-scope.ts) of the sessions the caller may see: the one session,
 * itself (and what it spawned, for a tree), or its agents; none when every session is visible.
 */
function scopeTokens(query: SearchQuery): string[] {
  if (query.sessionKey) return [sessionToken(query.sessionKey)];
  const { scope } = query;
  if (scope.type === "all") return [];
  if (scope.type === "agents") return scope.agentIds.map(agentToken);
  if (scope.type === "self") return [sessionToken(scope.sessionKey)];
  return [sessionToken(scope.sessionKey), parentToken(scope.sessionKey)];
}

/**
 * The MATCH expression: the words in the text column and, when the scope is narrower than everything,
 * one of the scope's tokens in the scope column. FTS5 then yields (and ranks) only the matches in the
 * caller's scope, walking the rarer side's doclist and skipping through the other's, so the cost follows
 * what the caller can see however many matches other sessions hold.
 */
function matchWithScope(query: SearchQuery): string {
  const tokens = scopeTokens(query).map((token) => `"${token}"`);
  const words = `text : (${query.match})`;
  return tokens.length === 0 ? words : `${words} AND scope : (${tokens.join(" OR ")})`;
}

/**
 * The page query. Later pages go by offset within the snapshot the first page pinned (its rowid
 * high-water mark), not by a keyset on the score: bm25 weighs the whole index's statistics, which every
 * new message anywhere moves, so a score kept in a cursor no longer compares with a later recomputation;
 * the order of the pinned matches among themselves barely moves. Every match in scope is ranked either
 * way (ORDER BY a score reads them all), so the offset costs no extra reads. FTS5 yields the matches in
 * the caller's scope (matchWithScope; nothing else is scanned: a query whose hits are few reads few rows
 * however large the index, or however many hits hidden sessions hold); each match reads its message row
 * by rowid, then its session's index row by a unique key (session_key or session_id, as SQLite picks),
 * where visibility, the authority, is tested before the ORDER BY and LIMIT, so a hidden session's hits
 * never take a place. The scope column weighs nothing in the score (bm25 weight 0). The visible sessions
 * are a subquery so the list scope's column names stay unambiguous; SQLite flattens it into the join.
 * CROSS JOIN keeps that order whatever the statistics say.
 */
export function searchStatement(query: SearchQuery, visible: Clause): Clause {
  const messageFilters: Clause[] = [clause("search_fts MATCH ?", matchWithScope(query))];
  messageFilters.push(clause("search_fts.rowid <= ?", query.highWater ?? Number.MAX_SAFE_INTEGER));
  if (query.role) messageFilters.push(clause("m.role = ?", query.role));
  else if (!query.includeTools) messageFilters.push(clause("m.role IN ('user', 'assistant')"));
  const sessions = and(sessionConditions(query, visible));
  const filters = and(messageFilters);
  return clause(
    `SELECT m.session_key, m.session_id, m.message_id, m.role, m.timestamp, m.text,
       bm25(search_fts, 1.0, 0.0) AS rank
     FROM search_fts
     CROSS JOIN search_message AS m ON m.id = search_fts.rowid
     CROSS JOIN (SELECT session_key AS visible_key, session_id AS visible_id FROM session_index
                 WHERE ${sessions.sql}) AS visible
       ON visible.visible_key = m.session_key AND visible.visible_id = m.session_id
     WHERE ${filters.sql}
     ORDER BY rank, m.timestamp DESC, m.session_key, m.message_id LIMIT ? OFFSET ?`,
    ...sessions.params,
    ...filters.params,
    query.limit + 1,
    query.offset ?? 0,
  );
}

/** Is any session in the searched scope behind (its backlog flag, read through its partial index)? */
function indexingStatement(query: SearchQuery, visible: Clause): Clause {
  const sessions = and(sessionConditions(query, visible));
  return clause(
    `SELECT 1 AS behind FROM session_index WHERE search_backlog = 1 AND ${sessions.sql} LIMIT 1`,
    ...sessions.params,
  );
}

/** One page of visible hits, best first; the high-water mark and the indexing flag from the same snapshot. */
export async function searchMessages(db: IndexDb, query: SearchQuery): Promise<SearchPage> {
  const visible = searchVisibility(query.scope);
  const highWater = query.highWater;
  if (!visible) return { rows: [], hasMore: false, highWater: highWater ?? 0, indexing: false, rowsRead: 0 };
  const statements = [searchStatement(query, visible), indexingStatement(query, visible)].map((s) =>
    db.prepare(s.sql).bind(...s.params),
  );
  // A first page pins the newest rowid as it read it (one batch is one transaction).
  if (highWater === undefined)
    statements.push(db.prepare("SELECT COALESCE(MAX(id), 0) AS high_water FROM search_message"));
  const [hits, behind, newest] = await db.batch<Record<string, unknown>>(statements);
  const results = (hits?.results ?? []) as unknown as SearchRow[];
  return {
    rows: results.slice(0, query.limit),
    hasMore: results.length > query.limit,
    highWater: highWater ?? Number(newest?.results[0]?.high_water ?? 0),
    indexing: (behind?.results.length ?? 0) > 0,
    rowsRead: [hits, behind, newest].reduce((sum, result) => sum + (result?.meta.rows_read ?? 0), 0),
  };
}
