import type { VisibleScope } from "../policy/visibility";
import { LIST_STATE } from "../session/index-row";

export interface ListCursor {
  updatedAt: number;
  sessionKey: string;
}

export interface ListQuery {
  scope: VisibleScope;
  kinds?: string[];
  agentId?: string;
  label?: string;
  /** Only sessions updated at or after this time (ms). */
  updatedSince?: number;
  search?: string;
  includeArchived?: boolean;
  cursor?: ListCursor;
  limit: number;
}

export interface ListPage {
  rows: Record<string, unknown>[];
  nextCursor?: ListCursor;
  rowsRead: number;
}

/** A piece of a WHERE clause with its bound values. */
export interface Clause {
  sql: string;
  params: unknown[];
}

// Trigram FTS needs three characters; shorter searches fall back to a substring test on the candidates.
const MIN_FTS_CHARS = 3;
// D1 binds at most 100 parameters per statement (one more is the LIMIT) and allows at most 5 terms in
// a compound SELECT.
const MAX_BOUND_PARAMS = 99;
const MAX_COMPOUND_TERMS = 5;
const ORDER = "ORDER BY updated_at DESC, session_key DESC";

const clause = (sql: string, ...params: unknown[]): Clause => ({ sql, params });

/**
 * The requester's visibility (SPEC §4, enforced by the query) as alternatives, each an equality an
 * index of migrations/0001 leads with. Tree children of another agent are cross-agent, so hidden.
 */
function scopeAlternatives(scope: VisibleScope, agentId: string | undefined): Clause[] {
  if (scope.type === "agents") {
    const agents = agentId ? scope.agentIds.filter((id) => id === agentId) : scope.agentIds;
    return agents.map((id) => clause("agent_id = ?", id));
  }
  const own = scope.agentId;
  if (agentId && agentId !== own) return [];
  const self = clause("session_key = ?", scope.sessionKey);
  if (scope.type === "self") return [self];
  return [self, clause("spawned_by = ? AND agent_id = ?", scope.sessionKey, own)];
}

/** Filters every alternative shares; each one narrows an index range or tests rows read in order. */
function sharedFilters(query: ListQuery): Clause[] {
  const filters: Clause[] = [];
  if (query.label) filters.push(clause("label = ?", query.label));
  if (query.updatedSince !== undefined) filters.push(clause("updated_at >= ?", query.updatedSince));
  if (query.search) {
    const needle = query.search.toLowerCase();
    filters.push(
      needle.length >= MIN_FTS_CHARS
        ? clause(
            "rowid IN (SELECT rowid FROM session_search WHERE session_search MATCH ?)",
            `"${needle.replaceAll('"', '""')}"`,
          )
        : clause("instr(search_text, ?) > 0", needle),
    );
  }
  // A row value, not an OR, so the cursor is an index range and a deep page starts where it left off.
  if (query.cursor)
    filters.push(
      clause("(updated_at, session_key) < (?, ?)", query.cursor.updatedAt, query.cursor.sessionKey),
    );
  return filters;
}

function and(clauses: Clause[]): Clause {
  return clause(clauses.map((c) => c.sql).join(" AND "), ...clauses.flatMap((c) => c.params));
}

function or(clauses: Clause[]): Clause {
  return clause(`(${clauses.map((c) => c.sql).join(" OR ")})`, ...clauses.flatMap((c) => c.params));
}

/** Every combination of one alternative per dimension. */
function combinations(dimensions: Clause[][]): Clause[][] {
  return dimensions.reduce<Clause[][]>(
    (combos, options) => combos.flatMap((combo) => options.map((option) => [...combo, option])),
    [[]],
  );
}

/**
 * The page query. Each combination of (scope, kind, list state) is an equality prefix of one index, so
 * its rows come out already ordered; SQLite merges the ordered branches of a UNION ALL and stops at the
 * LIMIT, so a page reads about `limit` rows however many sessions match. D1 allows few compound terms
 * and bound parameters, so past them dimensions become OR-ed filters, kinds first (a kind filter on rows
 * read in index order still stops at the LIMIT), then list states, then scopes: still correct, just no
 * longer bounded by `limit`.
 */
function pageStatement(query: ListQuery, scopes: Clause[]): Clause {
  // Deduplicated, or a kind named twice would be a second branch and list its sessions twice.
  const kinds = [...new Set(query.kinds ?? [])].map((kind) => clause("kind = ?", kind));
  const states = [LIST_STATE.listed, ...(query.includeArchived ? [LIST_STATE.archived] : [])].map((state) =>
    clause("list_state = ?", state),
  );
  const dimensions = [scopes, states, kinds].filter((options) => options.length > 0);
  const shared = sharedFilters(query);
  let branches: Clause[] = [];
  for (let expanded = dimensions.length; expanded >= 0; expanded--) {
    const filters = [...dimensions.slice(expanded).map(or), ...shared];
    branches = combinations(dimensions.slice(0, expanded)).map((combo) => and([...combo, ...filters]));
    const bound = branches.reduce((sum, branch) => sum + branch.params.length, 0);
    if (branches.length <= MAX_COMPOUND_TERMS && bound <= MAX_BOUND_PARAMS) break;
  }
  const selects = branches.map((where) => `SELECT * FROM session_index WHERE ${where.sql}`);
  return clause(
    `${selects.join(" UNION ALL ")} ${ORDER} LIMIT ?`,
    ...branches.flatMap((branch) => branch.params),
    query.limit + 1,
  );
}

/** One page of visible sessions, newest first, keyset-paged on (updated_at, session_key). */
export async function listSessions(db: D1Database, query: ListQuery): Promise<ListPage> {
  const statement = listStatement(query);
  if (!statement) return { rows: [], rowsRead: 0 };
  const result = await db
    .prepare(statement.sql)
    .bind(...statement.params)
    .all<Record<string, unknown>>();
  const rows = result.results.slice(0, query.limit);
  const last = rows.at(-1);
  const hasMore = result.results.length > query.limit && last !== undefined;
  return {
    rows,
    rowsRead: result.meta.rows_read,
    ...(hasMore
      ? { nextCursor: { updatedAt: Number(last.updated_at), sessionKey: String(last.session_key) } }
      : {}),
  };
}

/** The SQL and bound values `listSessions` runs for a query; undefined when nothing can be visible. */
export function listStatement(query: ListQuery): Clause | undefined {
  const scopes = scopeAlternatives(query.scope, query.agentId);
  return scopes.length === 0 ? undefined : pageStatement(query, scopes);
}
