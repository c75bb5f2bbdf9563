import type { IndexRow } from "../session/api";
import { type ChildKeyRow, childKeysOf, childKeysStatement, visibleChildKeys } from "./children";
import { type ListCursor, type ListPage, type ListQuery, listStatement } from "./list";
import { type IndexDb, type IndexShards, newestFirst, type RecencyRow, scopeShards } from "./shards";

// D1 binds at most 100 values per statement.
const MAX_BOUND = 100;

/** One page of visible sessions, newest first, keyset-paged on `recency` (updatedAt, then its slot). */
export async function listSessions(shards: IndexShards, query: ListQuery): Promise<ListPage> {
  const targets = scopeShards(shards, query.scope, query.agentId);
  const [only] = targets;
  if (targets.length > 1) return mergedPage(shards, targets, query);
  const statement = listStatement(query);
  if (!statement || !only) return { rows: [], hasMore: false, rowsRead: 0 };
  const result = await only
    .prepare(statement.sql)
    .bind(...statement.params)
    .all<IndexRow>();
  return pageOf(result, query.limit);
}

/** A page from its statement's result (limit + 1 rows: the last one only says that more follow). */
function pageOf(result: D1Result<IndexRow>, limit: number): ListPage {
  const rows = result.results.slice(0, limit);
  const last = rows.at(-1);
  const hasMore = result.results.length > limit && last !== undefined;
  return {
    rows,
    hasMore,
    rowsRead: result.meta.rows_read,
    ...(hasMore
      ? { nextCursor: { updatedAt: Number(last.updated_at), tiebreak: Number(last.recency_tiebreak) } }
      : {}),
  };
}

/**
 * A page and its rows' visible children (sessions_list's `childSessions`). When one shard holds both the
 * page and every child the scope may see (one shard in all, or an agent's own scope), both are one round
 * trip: a batch whose second statement takes the page's own statement as its parents' subquery (the page's
 * rows read twice, one network wait saved; the look-ahead row's children are read too, and dropped). Otherwise the children are a second read (`visibleChildKeys`).
 */
export async function listSessionsWithChildren(
  shards: IndexShards,
  query: ListQuery,
): Promise<{ page: ListPage; children: Map<string, string[]> }> {
  const [only, ...others] = scopeShards(shards, query.scope, query.agentId);
  const [childShard, ...moreChildShards] = scopeShards(shards, query.scope);
  const statement = listStatement(query);
  const children =
    statement &&
    childKeysStatement(
      { sql: `SELECT session_key FROM (${statement.sql})`, params: statement.params },
      query.scope,
    );
  if (
    only &&
    others.length === 0 &&
    moreChildShards.length === 0 &&
    only === childShard &&
    statement &&
    children &&
    children.params.length <= MAX_BOUND
  ) {
    const [pageResult, childResult] = await only.batch([
      only.prepare(statement.sql).bind(...statement.params),
      only.prepare(children.sql).bind(...children.params),
    ]);
    const page = pageOf(pageResult as D1Result<IndexRow>, query.limit);
    const listed = new Set(page.rows.map((row) => String(row.session_key)));
    const rows = (childResult as D1Result<ChildKeyRow>).results.filter((row) => listed.has(row.spawned_by));
    return { page, children: childKeysOf(rows, parentIdsOf(page)) };
  }
  const page = await listSessions(shards, query);
  const keys = page.rows.map((columns) => String(columns.session_key));
  return { page, children: await visibleChildKeys(shards, keys, query.scope, parentIdsOf(page)) };
}

/** The page's sessions' ids by key: their children are theirs, not an earlier session's of a key (SPEC §23). */
const parentIdsOf = (page: ListPage): Map<string, string> =>
  new Map(page.rows.map((row) => [String(row.session_key), String(row.session_id)]));

/**
 * The cursor as shard `shard` applies it. The merged order is (recency, shard) descending, so after the
 * cursor's (R, S) come a shard's rows below R, and, in a shard numbered below S, those at R too: `<
 * R + 1` there. A cursor without a shard (one shard's page) is `< R` everywhere.
 */
function shardCursor(cursor: ListCursor | undefined, shard: number): ListCursor | undefined {
  if (!cursor || shard >= (cursor.shard ?? 0)) return cursor;
  return { updatedAt: cursor.updatedAt, tiebreak: cursor.tiebreak + 1 };
}

/**
 * The fan-out (shards.ts `scopeShards`): every shard reads the page from the same cursor (keyset, a
 * position, so valid in each) with limit + offset + 1 rows, and the rows are merged in the same order,
 * recency then shard. An offset is applied after the merge (each shard reads it in full: callers cap it).
 */
async function mergedPage(shards: IndexShards, targets: IndexDb[], query: ListQuery): Promise<ListPage> {
  const offset = query.offset ?? 0;
  const reads = await Promise.all(
    targets.map(async (db) => {
      const shard = shards.indexOf(db);
      const cursor = shardCursor(query.cursor, shard);
      const { offset: _, cursor: __, ...rest } = query;
      const statement = listStatement({
        ...rest,
        limit: query.limit + offset,
        ...(cursor ? { cursor } : {}),
      });
      if (!statement) return { rows: [], rowsRead: 0 };
      const result = await db
        .prepare(statement.sql)
        .bind(...statement.params)
        .all<IndexRow & RecencyRow>();
      return { rows: result.results.map((row) => ({ row, shard })), rowsRead: result.meta.rows_read };
    }),
  );
  const merged = reads
    .flatMap((read) => read.rows)
    .sort((a, b) => newestFirst(a.row, b.row) || b.shard - a.shard);
  const page = merged.slice(offset, offset + query.limit);
  const last = page.at(-1);
  const hasMore = merged.length > offset + query.limit && last !== undefined;
  return {
    rows: page.map((entry) => entry.row),
    hasMore,
    rowsRead: reads.reduce((sum, read) => sum + read.rowsRead, 0),
    ...(hasMore
      ? {
          nextCursor: {
            updatedAt: Number(last.row.updated_at),
            tiebreak: Number(last.row.recency_tiebreak),
            shard: last.shard,
          },
        }
      : {}),
  };
}
