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

// Trigram FTS needs three characters; shorter searches fall back to a substring test on the candidates.
const MIN_FTS_CHARS = 3;

/** The WHERE clause of the requester's visibility: SPEC §4 enforced by the query itself. */
function scopeClause(scope: VisibleScope): { sql: string; params: unknown[] } {
  if (scope.type === "self") return { sql: "session_key = ?", params: [scope.sessionKey] };
  if (scope.type === "tree")
    return { sql: "(session_key = ? OR spawned_by = ?)", params: [scope.sessionKey, scope.sessionKey] };
  return { sql: `agent_id IN (${scope.agentIds.map(() => "?").join(", ")})`, params: scope.agentIds };
}

/** One page of visible sessions, newest first, keyset-paged on (updated_at, session_key). */
export async function listSessions(db: D1Database, query: ListQuery): Promise<ListPage> {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, ...values: unknown[]) => {
    where.push(sql);
    params.push(...values);
  };
  const scope = scopeClause(query.scope);
  add(scope.sql, ...scope.params);
  if (query.includeArchived) add("list_state IN (?, ?)", LIST_STATE.listed, LIST_STATE.archived);
  else add("list_state = ?", LIST_STATE.listed);
  if (query.agentId) add("agent_id = ?", query.agentId);
  if (query.kinds && query.kinds.length > 0)
    add(`kind IN (${query.kinds.map(() => "?").join(", ")})`, ...query.kinds);
  if (query.label) add("label = ?", query.label);
  if (query.updatedSince !== undefined) add("updated_at >= ?", query.updatedSince);
  if (query.search) {
    const needle = query.search.toLowerCase();
    if (needle.length >= MIN_FTS_CHARS) {
      add(
        "rowid IN (SELECT rowid FROM session_search WHERE session_search MATCH ?)",
        `"${needle.replaceAll('"', '""')}"`,
      );
    } else {
      add("instr(search_text, ?) > 0", needle);
    }
  }
  if (query.cursor) {
    add(
      "(updated_at < ? OR (updated_at = ? AND session_key < ?))",
      query.cursor.updatedAt,
      query.cursor.updatedAt,
      query.cursor.sessionKey,
    );
  }
  const result = await db
    .prepare(
      `SELECT * FROM session_index WHERE ${where.join(" AND ")}
       ORDER BY updated_at DESC, session_key DESC LIMIT ?`,
    )
    .bind(...params, query.limit + 1)
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
