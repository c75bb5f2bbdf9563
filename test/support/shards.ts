import { env } from "cloudflare:workers";
import { type BoundShards, indexShards, keyShard } from "../../src/index-db/shards";

/** The index's shards as the Worker binds them (vitest.config.ts: DB, DB_1, DB_2). */
export const shards = (): BoundShards => indexShards(env);

/** The shard holding a session's index rows (its key's agent), for a test reading or writing them directly. */
export const shardOf = (sessionKey: string): D1Database => keyShard(shards(), sessionKey);

/** A statement's rows from every shard (children, runs: rows not routed by one key), shard after shard. */
export async function rowsInEveryShard<T>(sql: string, ...params: unknown[]): Promise<T[]> {
  const parts = await Promise.all(
    shards().map(
      async (db) =>
        (
          await db
            .prepare(sql)
            .bind(...params)
            .all<T>()
        ).results,
    ),
  );
  return parts.flat();
}

/** These databases as index shards with the Worker's `index.routeByKey` (a one-shard view, a wrapped one). */
export const shardsOf = (...dbs: [D1Database, ...D1Database[]]): BoundShards =>
  Object.assign(dbs, { keyRouted: shards().keyRouted });
