import type { VisibleScope } from "../policy/visibility";
import { type IndexRow, LIST_STATE, SESSION_ROW_COLUMNS } from "../session/api";
import { ownChild } from "./generations";

/**
 * Where a page ends: the last row's updatedAt and its tie-break (see `recency` in migrations/0003), and,
 * when the page merged several shards, the last row's shard (slots repeat across shards; see listSessions).
 */
export interface ListCursor {
  updatedAt: number;
  tiebreak: number;
  shard?: number;
}

export interface ListQuery {
  scope: VisibleScope;
  kinds?: string[];
  agentId?: string;
  label?: string;
  /** Only sessions updated at or after this time (ms). */
  updatedSince?: number;
  search?: string;
  /** false/absent: listed sessions only; true: archived only; "all": both (SPEC §17). */
  archived?: boolean | "all";
  cursor?: ListCursor;
  /** Rows skipped before the page (after the cursor, if any). */
  offset?: number;
  limit: number;
}

export interface ListPage {
  rows: IndexRow[];
  /** More rows follow this page (then `nextCursor` names where). */
  hasMore: boolean;
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
// D1 binds at most 100 parameters per statement (two more are LIMIT and OFFSET) and allows at most 5 terms in
// a compound SELECT.
const MAX_BOUND_PARAMS = 98;
const MAX_COMPOUND_TERMS = 5;
// recency = updated_at × 2^20 + its slot, the tie-break (migrations/0003); both halves stay exact numbers.
// The product does not, so SQL computes it, from values cast to INTEGER (D1 may bind a number as REAL).
const TIEBREAK_SPAN = 1_048_576;
// Only the columns a listed row is made of (search text, task, counters and the like stay in D1: a page
// of 50 carried and converted them twice, its rows and its children's subquery), plus the order.
const COLUMNS = [
  ...SESSION_ROW_COLUMNS.map((column) => `session_index.${column}`),
  "session_index.recency",
  `session_index.recency % ${TIEBREAK_SPAN} AS recency_tiebreak`,
].join(", ");

const clause = (sql: string, ...params: unknown[]): Clause => ({ sql, params });
/** No condition: the scope of a requester who sees every agent. */
const EVERYTHING = clause("");

/**
 * The requester's visibility (SPEC §4, enforced by the query) as alternatives, each an equality an
 * index of migrations/0003 leads with. Tree children of another agent are cross-agent, so hidden.
 */
function scopeAlternatives(scope: VisibleScope, agentId: string | undefined): Clause[] {
  if (scope.type === "all") return [agentId ? clause("agent_id = ?", agentId) : EVERYTHING];
  if (scope.type === "agents") {
    const agents = agentId ? scope.agentIds.filter((id) => id === agentId) : scope.agentIds;
    return agents.map((id) => clause("agent_id = ?", id));
  }
  const own = scope.agentId;
  if (agentId && agentId !== own) return [];
  const self = clause("session_key = ?", scope.sessionKey);
  if (scope.type === "self") return [self];
  // Its children are its session's, not its key's (SPEC §23); unbound ones (from before) go by key.
  const children =
    scope.sessionId === undefined
      ? clause("spawned_by = ? AND agent_id = ?", scope.sessionKey, own)
      : clause(
          `spawned_by = ? AND agent_id = ? AND ${ownChild("?")}`,
          scope.sessionKey,
          own,
          scope.sessionId,
        );
  return [self, children];
}

/** The time window and the cursor, as ranges of the ordering column (`recency` or the FTS rowid). */
function orderRanges(query: ListQuery, order: string): Clause[] {
  const ranges: Clause[] = [];
  if (query.updatedSince !== undefined)
    ranges.push(clause(`${order} >= CAST(? AS INTEGER) * ${TIEBREAK_SPAN}`, query.updatedSince));
  if (query.cursor)
    ranges.push(
      clause(
        `${order} < CAST(? AS INTEGER) * ${TIEBREAK_SPAN} + CAST(? AS INTEGER)`,
        query.cursor.updatedAt,
        query.cursor.tiebreak,
      ),
    );
  return ranges;
}

/** Filters every alternative shares; each one narrows an index range or tests rows read in order. */
function sharedFilters(query: ListQuery): Clause[] {
  const filters: Clause[] = [];
  if (query.label) filters.push(clause("label = ?", query.label));
  if (query.search)
    filters.push(clause("instr(session_index.search_text, ?) > 0", query.search.toLowerCase()));
  return filters;
}

function and(clauses: Clause[]): Clause {
  const terms = clauses.filter((c) => c.sql !== "");
  return clause(terms.map((c) => c.sql).join(" AND ") || "1", ...terms.flatMap((c) => c.params));
}

function or(clauses: Clause[]): Clause {
  if (clauses.some((c) => c.sql === "")) return EVERYTHING;
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
 * The kinds of a chat's session: the many, whose turns write no per-kind order (migrations/0018); a
 * branch of them walks its agent's order. A branch of another kind names the partial index's condition,
 * word for word, so SQLite may use `session_index_agent_kind`.
 */
const CHAT_KINDS = new Set(["group", "other"]);
const kindClause = (kind: string): Clause =>
  CHAT_KINDS.has(kind)
    ? clause("kind = ?", kind)
    : clause("kind = ? AND kind NOT IN ('group', 'other')", kind);
/** Listed sessions walk an order every row is in; the others name `session_index_recent`'s condition. */
const stateClause = (state: number): Clause =>
  state === LIST_STATE.listed
    ? clause("list_state = ?", state)
    : clause("list_state = ? AND list_state != 0", state);

/** The alternatives of each dimension a list query has: scope, list state, kind. */
function dimensionsOf(query: ListQuery, scopes: Clause[]): Clause[][] {
  // Deduplicated, or a kind named twice would be a second branch and list its sessions twice.
  const kinds = [...new Set(query.kinds ?? [])].map(kindClause);
  const states = (
    query.archived === "all"
      ? [LIST_STATE.listed, LIST_STATE.archived]
      : [query.archived ? LIST_STATE.archived : LIST_STATE.listed]
  ).map(stateClause);
  return [scopes, states, kinds].filter((options) => options.length > 0);
}

/**
 * The page query. Each combination of (scope, kind, list state) is an equality prefix of one index, so
 * its rows come out already in `recency` order; SQLite merges the ordered branches of a UNION ALL and
 * stops at the LIMIT, so a page reads `limit` + 1 rows plus one look-ahead row per further branch,
 * however many sessions match and however deep the cursor. D1 allows few compound terms and bound
 * parameters, so past them dimensions become OR-ed filters, kinds first (a kind filter on rows read in
 * index order still stops at the LIMIT), then list states, then scopes: still correct, just no longer
 * bounded by `limit`. An `offset` is read and skipped on top (callers cap it: list-cursor.ts).
 */
function indexedStatement(query: ListQuery, scopes: Clause[]): Clause {
  const dimensions = dimensionsOf(query, scopes);
  // Kinds are a branch each only under an agent (`session_index_agent_kind`): with every agent visible no
  // index leads with the kind (migrations/0016: no turn pays for that order), so they filter the one walk.
  const everyAgent = scopes.some((scope) => scope.sql === "");
  const kinds = everyAgent && query.kinds?.length ? dimensions.pop() : undefined;
  const shared = [...(kinds ? [or(kinds)] : []), ...sharedFilters(query), ...orderRanges(query, "recency")];
  let branches: Clause[] = [];
  for (let expanded = dimensions.length; expanded >= 0; expanded--) {
    const filters = [...dimensions.slice(expanded).map(or), ...shared];
    branches = combinations(dimensions.slice(0, expanded)).map((combo) => and([...combo, ...filters]));
    const bound = branches.reduce((sum, branch) => sum + branch.params.length, 0);
    if (branches.length <= MAX_COMPOUND_TERMS && bound <= MAX_BOUND_PARAMS) break;
  }
  const selects = branches.map((where) => `SELECT ${COLUMNS} FROM session_index WHERE ${where.sql}`);
  return clause(
    `${selects.join(" UNION ALL ")} ORDER BY recency DESC LIMIT ? OFFSET ?`,
    ...branches.flatMap((branch) => branch.params),
    query.limit + 1,
    query.offset ?? 0,
  );
}

/**
 * A search page, driven by the FTS index: its rowid is the row's own (migrations/0020), so each match's row
 * is one primary-key read; the filters and the cursor test it, and the survivors are sorted by `recency`.
 * A page reads every match twice (its FTS entry and its row), whatever the page: a needle matching many
 * sessions reads them all (SPEC §24 traded this for the two rows written a turn when the FTS rowid was the
 * recency, and every move rewrote the entry; docs/scaling.md).
 */
function searchStatement(query: ListQuery, needle: string, scopes: Clause[]): Clause {
  const filters = and([
    ...dimensionsOf(query, scopes).map(or),
    ...sharedFilters(query),
    ...orderRanges(query, "session_index.recency"),
  ]);
  return clause(
    `SELECT ${COLUMNS} FROM session_search
       CROSS JOIN session_index ON session_index.rowid = session_search.rowid
     WHERE session_search MATCH ? AND ${filters.sql} ORDER BY session_index.recency DESC LIMIT ? OFFSET ?`,
    `"${needle.replaceAll('"', '""')}"`,
    ...filters.params,
    query.limit + 1,
    query.offset ?? 0,
  );
}

/** The requester's visibility as one WHERE condition over `session_index`; undefined when nothing is visible. */
export function visibleCondition(scope: VisibleScope): Clause | undefined {
  const scopes = scopeAlternatives(scope, undefined);
  return scopes.length === 0 ? undefined : or(scopes);
}

/** The SQL and bound values `listSessions` runs for a query; undefined when nothing can be visible. */
export function listStatement(query: ListQuery): Clause | undefined {
  const scopes = scopeAlternatives(query.scope, query.agentId);
  if (scopes.length === 0) return undefined;
  const needle = query.search?.toLowerCase();
  return needle && needle.length >= MIN_FTS_CHARS
    ? searchStatement(query, needle, scopes)
    : indexedStatement(query, scopes);
}
