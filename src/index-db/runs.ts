import { everyShard, type IndexDb, type IndexShards, shardNumber } from "./shards";
import { MAX_TREE_DEPTH, reachesAncestor } from "./walk";

/**
 * The session key a run belongs to, from the run index (primary key lookup). The run's row is in its
 * session's shard, which a run id made by `runIdIn` names by its own hash: that shard is read first, and
 * only a run not found there (an id made otherwise) asks the others (in parallel).
 */
export async function findRunSession(shards: IndexShards, runId: string): Promise<string | undefined> {
  const read = async (db: IndexDb) =>
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
 * Where a walk up the spawn tree from a run starts: `start` selects, for the runs bound as a JSON array,
 * `run_id`, the `value` the caller is answered with, the first `ancestor` to test (at `depth`) and the
 * session of it the run's session is `bound` to (null: by key); the walk passes only through listed or
 * archived sessions when `listedOnly`.
 */
interface RunWalk {
  start: string;
  depth: number;
  listedOnly: boolean;
}

/**
 * The runs among `runIds` whose walk reaches `callerKey`, by runId → the walk's `value`. With one shard
 * one recursive CTE; with several, each run's start read on every shard (a run's row and its session's
 * are in the same shard), then `reachesAncestor` a level at a time.
 */
async function runsReaching(
  shards: IndexShards,
  walk: RunWalk,
  caller: { sessionKey: string; sessionId?: string },
  runIds: readonly string[],
): Promise<Map<string, string>> {
  if (runIds.length === 0) return new Map();
  const ids = JSON.stringify(runIds);
  if (shards.length > 1) {
    const parts = await everyShard(shards, async (db) => {
      const { results } = await db
        .prepare(walk.start)
        .bind(ids)
        .all<{ run_id: string; value: string; ancestor: string; bound: string | null }>();
      return results;
    });
    const runs = parts.flat();
    const starts = new Map(runs.map((run) => [run.run_id, { ancestor: run.ancestor, bound: run.bound }]));
    const reached = await reachesAncestor(shards, starts, caller, walk);
    return new Map(runs.filter((run) => reached.has(run.run_id)).map((run) => [run.run_id, run.value]));
  }
  // The step into the caller must be bound to the caller's session, if both are known (SPEC §23).
  const { results } = await shards[0]
    .prepare(
      `WITH RECURSIVE up(run_id, value, ancestor, bound, depth) AS (
         SELECT run_id, value, ancestor, bound, ${walk.depth} FROM (${walk.start})
         UNION ALL
         SELECT up.run_id, up.value, s.spawned_by, s.spawned_by_id, up.depth + 1 FROM up
           JOIN session_index s ON s.session_key = up.ancestor
           WHERE up.depth < ${MAX_TREE_DEPTH} ${walk.listedOnly ? "AND s.list_state IN (0, 1)" : ""}
       )
       SELECT DISTINCT run_id, value FROM up
         WHERE ancestor = ?2 AND (bound IS NULL OR ?3 IS NULL OR bound = ?3)`,
    )
    .bind(ids, caller.sessionKey, caller.sessionId ?? null)
    .all<{ run_id: string; value: string }>();
  return new Map(results.map((row) => [row.run_id, row.value]));
}

// From a listed or archived run's session up through its spawner's (whatever their list state).
const CONTROLLED: RunWalk = {
  start: `SELECT r.run_id, r.session_key AS value, s.spawned_by AS ancestor, s.spawned_by_id AS bound FROM run_index r
    JOIN session_index s ON s.session_key = r.session_key
    WHERE r.run_id IN (SELECT value FROM json_each(?)) AND s.list_state IN (0, 1) AND s.spawned_by IS NOT NULL`,
  depth: 1,
  listedOnly: false,
};

// From the spawner the run index keeps (it outlives the child's row) up through listed or archived ones.
const COLLECTOR: RunWalk = {
  start: `SELECT run_id, spawner_key AS value, spawner_key AS ancestor, NULL AS bound FROM run_index
    WHERE run_id IN (SELECT value FROM json_each(?)) AND spawner_key IS NOT NULL`,
  depth: 0,
  listedOnly: true,
};

/**
 * The runs among `runIds` that belong to the caller's controlled tree (its children and their
 * descendants, following `spawned_by` up from each run's session), by runId → session key. One read,
 * the ids bound as one JSON parameter (however many). With the caller's session id, a run under a child
 * of an earlier session of its key is not in its tree (SPEC §23 "Generations").
 */
export function controlledRuns(
  shards: IndexShards,
  callerKey: string,
  runIds: readonly string[],
  callerSessionId?: string,
): Promise<Map<string, string>> {
  const caller = { sessionKey: callerKey, ...(callerSessionId ? { sessionId: callerSessionId } : {}) };
  return runsReaching(shards, CONTROLLED, caller, runIds);
}

/**
 * The collector runs among `runIds` whose spawner (kept in the run index, which outlives the child's
 * row) is the caller or one of its descendants, by runId → spawner key. One read.
 */
export function collectorSpawners(
  shards: IndexShards,
  callerKey: string,
  runIds: readonly string[],
): Promise<Map<string, string>> {
  return runsReaching(shards, COLLECTOR, { sessionKey: callerKey }, runIds);
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
