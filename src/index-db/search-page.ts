import { type SearchPage, type SearchQuery, type SearchRow, searchMessages } from "./search";
import { type IndexDb, type IndexShards, keyShard, scopeShards } from "./shards";

/**
 * A search's high-water mark: one shard's newest message rowid, or, when the search merged several
 * shards, each shard's (by shard number; rowids are per database).
 */
export type HighWater = number | number[];

/** Hits before the page: in one shard's snapshot, or, when merged, in each shard's (by shard number). */
export type SearchOffset = number | number[];

export type ShardedSearchQuery = Omit<SearchQuery, "highWater" | "offset"> & {
  highWater?: HighWater;
  offset?: SearchOffset;
};
export type ShardedSearchPage = Omit<SearchPage, "highWater"> & {
  highWater: HighWater;
  /** Where the next page starts once the first `taken` rows of this one are shown. */
  offsetAfter: (taken: number) => SearchOffset;
};

// The page's order, as searchStatement's ORDER BY has it.
const bestFirst = (a: SearchRow, b: SearchRow): number =>
  a.rank - b.rank ||
  b.timestamp - a.timestamp ||
  (a.session_key < b.session_key ? -1 : a.session_key > b.session_key ? 1 : 0) ||
  (a.message_id < b.message_id ? -1 : a.message_id > b.message_id ? 1 : 0);

/** One shard's part of a cursor's mark or offset. */
const partOf = (value: number | number[] | undefined, shard: number) =>
  Array.isArray(value) ? (value[shard] ?? 0) : value;

/**
 * One page of visible hits, best first, over the shards the search reaches: its one session's shard, or
 * the scope's (`scopeShards`). Several are read in parallel, each in its own pinned snapshot from its
 * own offset (limit hits, and whether more follow), and merged by rank. The cursor keeps each shard's
 * offset (how many of its hits pages have shown), not one merged offset: bm25 scores of one shard move
 * with its own statistics only, so a merged order would shift between pages while each shard's own order
 * holds. The approximation: bm25 weighs a term by its rarity in the shard's index, not the whole, so hits
 * of different shards compare only roughly (with agents spread evenly the statistics are alike); within a
 * shard the order is as with one database, and no hit is lost or repeated across pages.
 */
export async function searchShards(
  shards: IndexShards,
  query: ShardedSearchQuery,
): Promise<ShardedSearchPage> {
  const targets = query.sessionKey ? [keyShard(shards, query.sessionKey)] : scopeShards(shards, query.scope);
  const { highWater, offset, ...rest } = query;
  const read = (db: IndexDb) => {
    const shard = shards.indexOf(db);
    const mark = partOf(highWater, shard);
    const skip = partOf(offset, shard);
    return searchMessages(db, {
      ...rest,
      ...(mark !== undefined ? { highWater: mark } : {}),
      ...(skip !== undefined ? { offset: skip } : {}),
    });
  };
  if (targets.length === 1 && targets[0]) {
    const page = await read(targets[0]);
    return {
      ...page,
      offsetAfter: (taken) => (partOf(offset, shards.indexOf(targets[0] ?? shards[0])) ?? 0) + taken,
    };
  }
  const pages = await Promise.all(
    targets.map(async (db) => ({ shard: shards.indexOf(db), page: await read(db) })),
  );
  const merged = pages
    .flatMap(({ shard, page }) => page.rows.map((row) => ({ row, shard })))
    .sort((a, b) => bestFirst(a.row, b.row) || a.shard - b.shard);
  const marks = shards.map(() => 0);
  for (const { shard, page } of pages) marks[shard] = page.highWater;
  const shown = merged.slice(0, query.limit);
  return {
    rows: shown.map(({ row }) => row),
    // Each shard's page holds at most `limit` rows and says whether more follow.
    hasMore: merged.length > query.limit || pages.some(({ page }) => page.hasMore),
    highWater: marks,
    indexing: pages.some(({ page }) => page.indexing),
    rowsRead: pages.reduce((sum, { page }) => sum + page.rowsRead, 0),
    offsetAfter: (taken) => {
      const offsets = shards.map((_, shard) => partOf(offset, shard) ?? 0);
      for (const { shard } of shown.slice(0, taken)) offsets[shard] = (offsets[shard] ?? 0) + 1;
      return offsets;
    },
  };
}
