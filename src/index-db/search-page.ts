import { type SearchPage, type SearchQuery, type SearchRow, searchMessages } from "./search";
import { type IndexShards, keyShard, scopeShards } from "./shards";

/**
 * A search's high-water mark: one shard's newest message rowid, or, when the search merged several
 * shards, each shard's (by shard number; rowids are per database).
 */
export type HighWater = number | number[];

export type ShardedSearchQuery = Omit<SearchQuery, "highWater"> & { highWater?: HighWater };
export type ShardedSearchPage = Omit<SearchPage, "highWater"> & { highWater: HighWater };

// The page's order, as searchStatement's ORDER BY has it.
const bestFirst = (a: SearchRow, b: SearchRow): number =>
  a.rank - b.rank ||
  b.timestamp - a.timestamp ||
  (a.session_key < b.session_key ? -1 : a.session_key > b.session_key ? 1 : 0) ||
  (a.message_id < b.message_id ? -1 : a.message_id > b.message_id ? 1 : 0);

/** One shard's mark out of a cursor's. */
const markOf = (highWater: HighWater | undefined, shard: number) =>
  Array.isArray(highWater) ? (highWater[shard] ?? 0) : highWater;

/**
 * One page of visible hits, best first, over the shards the search reaches: its one session's shard, or
 * the scope's (`scopeShards`). Several are read in parallel, each from its own pinned snapshot with the
 * page's offset + limit + 1 hits, and merged by rank. The approximation: bm25 weighs a term by its rarity
 * in the shard's own index, not the whole, so hits of different shards compare only roughly (with
 * agents spread evenly the statistics are alike); within a shard the order is exact, and the pinned
 * snapshots keep the pages from shifting, so no hit is lost or repeated across pages.
 */
export async function searchShards(
  shards: IndexShards,
  query: ShardedSearchQuery,
): Promise<ShardedSearchPage> {
  const targets = query.sessionKey ? [keyShard(shards, query.sessionKey)] : scopeShards(shards, query.scope);
  const { highWater, ...rest } = query;
  if (targets.length === 1 && targets[0]) {
    const mark = markOf(highWater, shards.indexOf(targets[0]));
    return searchMessages(targets[0], { ...rest, ...(mark !== undefined ? { highWater: mark } : {}) });
  }
  const offset = query.offset ?? 0;
  const pages = await Promise.all(
    targets.map(async (db) => {
      const shard = shards.indexOf(db);
      const mark = markOf(highWater, shard);
      const page = await searchMessages(db, {
        ...rest,
        limit: query.limit + offset,
        offset: 0,
        ...(mark !== undefined ? { highWater: mark } : {}),
      });
      return { shard, page };
    }),
  );
  const merged = pages.flatMap(({ page }) => page.rows).sort(bestFirst);
  const marks = shards.map(() => 0);
  for (const { shard, page } of pages) marks[shard] = page.highWater;
  return {
    rows: merged.slice(offset, offset + query.limit),
    hasMore: merged.length > offset + query.limit,
    highWater: marks,
    indexing: pages.some(({ page }) => page.indexing),
    rowsRead: pages.reduce((sum, { page }) => sum + page.rowsRead, 0),
  };
}
