import { everyShard, type IndexShards, shardNumber } from "./shards";
import { MAX_TREE_DEPTH, reachesAncestor } from "./walk";

/**
 * The session key a run belongs to, from the run index (primary key lookup). The run's row is in its
 * session's shard, which a run id made by `runIdIn` names by its own hash: that shard is read first, and
 * only a run not found there (an id made otherwise) asks the others (in parallel).
 */
export async function findRunSession(shards: IndexShards, runId: string): Promise<string | undefined> {
  const read = async (db: D1Database) =>
    (
      await db
        .prepare("SELECT session_key FROM run_index WHERE run_id = ?")
        .bind(runId)
        .first<{ session_key: string }>()
    )?.session_key;
  const home = shards[shardNumber(runId, shards.length)] ?? shards[0];
  const found = await read(home);
  if (found !== undefined || shards.length === 1) return found;
  const others = await everyShard(
    shards.filter((db) => db !== home),
    read,
  );
  return others.find((key) => key !== undefined);
}

/**
 * The runs among `runIds` that belong to the caller's controlled tree (its children and their
 * descendants, following `spawned_by` up from each run's session), by runId → session key. One read,
 * the ids bound as one JSON parameter (however many).
 */
export async function controlledRuns(
  shards: IndexShards,
  callerKey: string,
  runIds: readonly string[],
): Promise<Map<string, string>> {
  if (runIds.length === 0) return new Map();
  if (shards.length > 1) {
    // Each run's session and its spawner (the run's row and its session's are in the same shard), then up.
    const parts = await everyShard(shards, async (db) => {
      const { results } = await db
        .prepare(
          `SELECT r.run_id, r.session_key, s.spawned_by FROM run_index r JOIN session_index s ON s.session_key = r.session_key
           WHERE r.run_id IN (SELECT value FROM json_each(?)) AND s.list_state IN (0, 1) AND s.spawned_by IS NOT NULL`,
        )
        .bind(JSON.stringify(runIds))
        .all<{ run_id: string; session_key: string; spawned_by: string }>();
      return results;
    });
    const runs = parts.flat();
    const starts = new Map(runs.map((run) => [run.run_id, run.spawned_by]));
    const reached = await reachesAncestor(shards, starts, callerKey, { depth: 1, listedOnly: false });
    return new Map(runs.filter((run) => reached.has(run.run_id)).map((run) => [run.run_id, run.session_key]));
  }
  const { results } = await shards[0]
    .prepare(
      `WITH RECURSIVE up(run_id, session_key, ancestor, depth) AS (
         SELECT r.run_id, r.session_key, s.spawned_by, 1 FROM run_index r
           JOIN session_index s ON s.session_key = r.session_key
           WHERE r.run_id IN (SELECT value FROM json_each(?)) AND s.list_state IN (0, 1)
         UNION ALL
         SELECT up.run_id, up.session_key, s.spawned_by, up.depth + 1 FROM up
           JOIN session_index s ON s.session_key = up.ancestor WHERE up.depth < ${MAX_TREE_DEPTH}
       )
       SELECT DISTINCT run_id, session_key FROM up WHERE ancestor = ?`,
    )
    .bind(JSON.stringify(runIds), callerKey)
    .all<{ run_id: string; session_key: string }>();
  return new Map(results.map((row) => [row.run_id, row.session_key]));
}

/**
 * The collector runs among `runIds` whose spawner (kept in the run index, which outlives the child's
 * row) is the caller or one of its descendants, by runId → spawner key. One read.
 */
export async function collectorSpawners(
  shards: IndexShards,
  callerKey: string,
  runIds: readonly string[],
): Promise<Map<string, string>> {
  if (runIds.length === 0) return new Map();
  if (shards.length > 1) {
    const parts = await everyShard(shards, async (db) => {
      const { results } = await db
        .prepare(
          `SELECT run_id, spawner_key FROM run_index
           WHERE run_id IN (SELECT value FROM json_each(?)) AND spawner_key IS NOT NULL`,
        )
        .bind(JSON.stringify(runIds))
        .all<{ run_id: string; spawner_key: string }>();
      return results;
    });
    const runs = parts.flat();
    const starts = new Map(runs.map((run) => [run.run_id, run.spawner_key]));
    const reached = await reachesAncestor(shards, starts, callerKey, { depth: 0, listedOnly: true });
    return new Map(runs.filter((run) => reached.has(run.run_id)).map((run) => [run.run_id, run.spawner_key]));
  }
  const { results } = await shards[0]
    .prepare(
      `WITH RECURSIVE up(run_id, spawner_key, ancestor, depth) AS (
         SELECT run_id, spawner_key, spawner_key, 0 FROM run_index
           WHERE run_id IN (SELECT value FROM json_each(?)) AND spawner_key IS NOT NULL
         UNION ALL
         SELECT up.run_id, up.spawner_key, s.spawned_by, up.depth + 1 FROM up
           JOIN session_index s ON s.session_key = up.ancestor
           WHERE up.depth < ${MAX_TREE_DEPTH} AND s.list_state IN (0, 1)
       )
       SELECT DISTINCT run_id, spawner_key FROM up WHERE ancestor = ?`,
    )
    .bind(JSON.stringify(runIds), callerKey)
    .all<{ run_id: string; spawner_key: string }>();
  return new Map(results.map((row) => [row.run_id, row.spawner_key]));
}

/**
 * The runs among `runIds` the run index knows, by runId → session key (one read per shard, ids bound as
 * JSON; run ids name no shard).
 */
export async function indexedRuns(
  shards: IndexShards,
  runIds: readonly string[],
): Promise<Map<string, string>> {
  if (runIds.length === 0) return new Map();
  const parts = await everyShard(shards, async (db) => {
    const { results } = await db
      .prepare("SELECT run_id, session_key FROM run_index WHERE run_id IN (SELECT value FROM json_each(?))")
      .bind(JSON.stringify(runIds))
      .all<{ run_id: string; session_key: string }>();
    return results;
  });
  return new Map(parts.flat().map((row) => [row.run_id, row.session_key]));
}
