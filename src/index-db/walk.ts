import { ownChildOf } from "./generations";
import {
  everyShard,
  type IndexDb,
  type IndexShards,
  keysByShard,
  newestFirst,
  RECENCY_COLUMNS,
  type RecencyRow,
} from "./shards";

/** How far a walk of the spawn tree goes: deeper than any maxSpawnDepth, it only stops a cyclic chain. */
export const MAX_TREE_DEPTH = 16;

/**
 * A spawn tree may cross agents (allowAgents), so with several shards its edges cross shards and no one
 * database can walk it in a recursive CTE. These walks go level by level instead (depth is bounded by
 * maxSpawnDepth), each level one read per shard in parallel. With one shard the callers keep their
 * single recursive CTE and never come here.
 */

/** A descendant found by `walkDownLevels`: the root it descends from, its depth, its index columns. */
export interface WalkedNode {
  root: string;
  depth: number;
  row: Record<string, string | number | null>;
}

// What any walk's caller reads of a descendant (subagents, the tree view, the tree stream).
const NODE_COLUMNS = `session_key, session_id, spawned_by, spawned_by_id, agent_id, label, spawn_task, status,
  started_at, ended_at, total_tokens, ${RECENCY_COLUMNS}`;

/**
 * The descendants of `roots` (children, theirs, …), parents before children and the newest activity
 * first within a level, as walkDown in children.ts has them: archived sessions are walked too, hidden
 * ones end their branch. Stops after the level that reaches `limit` nodes.
 */
export async function walkDownLevels(
  shards: IndexShards,
  roots: readonly string[],
  limit = Number.POSITIVE_INFINITY,
): Promise<WalkedNode[]> {
  const nodes: WalkedNode[] = [];
  // (root, session) pairs whose children the next level reads; a root inside another root's tree is walked
  // for both. Each with the session's id: its children are those of that session, not of its key (SPEC §23).
  const rootIds = await sessionIdsOf(shards, roots);
  let frontier = roots.map((root) => ({ root, sessionKey: root, sessionId: rootIds.get(root) }));
  for (let depth = 1; depth <= MAX_TREE_DEPTH && frontier.length > 0 && nodes.length < limit; depth++) {
    const parents = JSON.stringify([...new Set(frontier.map((pair) => pair.sessionKey))]);
    const found = await everyShard(shards, async (db) => {
      const { results } = await db
        .prepare(
          `SELECT ${NODE_COLUMNS} FROM session_index
           WHERE spawned_by IN (SELECT value FROM json_each(?)) AND list_state IN (0, 1)`,
        )
        .bind(parents)
        .all<Record<string, string | number | null> & RecencyRow>();
      return results;
    });
    const level = found.flat().sort(newestFirst);
    const next: typeof frontier = [];
    for (const row of level)
      for (const pair of frontier)
        if (pair.sessionKey === row.spawned_by && ownChildOf(row.spawned_by_id, pair.sessionId)) {
          nodes.push({ root: pair.root, depth, row });
          next.push({
            root: pair.root,
            sessionKey: String(row.session_key),
            sessionId: String(row.session_id),
          });
        }
    frontier = next;
  }
  return nodes;
}

/** The session ids of these sessions as the index has them (those indexed): read in each key's shard. */
async function sessionIdsOf(
  shards: IndexShards,
  sessionKeys: readonly string[],
): Promise<Map<string, string>> {
  const parts = await Promise.all(
    [...keysByShard(shards, sessionKeys)].map(async ([db, keys]) => {
      const { results } = await db
        .prepare(
          "SELECT session_key, session_id FROM session_index WHERE session_key IN (SELECT value FROM json_each(?))",
        )
        .bind(JSON.stringify(keys))
        .all<{ session_key: string; session_id: string }>();
      return results;
    }),
  );
  return new Map(parts.flat().map((row) => [row.session_key, row.session_id]));
}

/** A session's spawner as its index row has it: the spawner's key, and the session of it bound to. */
interface Spawner {
  spawnedBy: string | null;
  spawnedById: string | null;
}

/** For each of these sessions, its spawner (null for none): read in each key's shard. */
async function spawnersOf(
  shards: IndexShards,
  sessionKeys: readonly string[],
  listedOnly: boolean,
): Promise<Map<string, Spawner>> {
  const parts = await Promise.all(
    [...keysByShard(shards, sessionKeys)].map(async ([db, keys]) => {
      const { results } = await db
        .prepare(
          `SELECT session_key, spawned_by, spawned_by_id FROM session_index
           WHERE session_key IN (SELECT value FROM json_each(?)) ${listedOnly ? "AND list_state IN (0, 1)" : ""}`,
        )
        .bind(JSON.stringify(keys))
        .all<{ session_key: string; spawned_by: string | null; spawned_by_id: string | null }>();
      return results;
    }),
  );
  return new Map(
    parts
      .flat()
      .map((row) => [row.session_key, { spawnedBy: row.spawned_by, spawnedById: row.spawned_by_id }]),
  );
}

/** A walk up in progress: the next ancestor to test, and the session of it the step below is bound to. */
export interface WalkUp {
  ancestor: string;
  bound: string | null;
}

/**
 * Which of the `starts` (an id → the first ancestor to test, at `depth`) reach `target` following
 * `spawned_by` upwards, as the walk-up CTE of runs.ts does: an ancestor at a time, up to MAX_TREE_DEPTH,
 * through sessions that are listed or archived only when `listedOnly`. With the target's session id, the
 * step into the target must be bound to that session (SPEC §23: not to an earlier one of its key).
 */
export async function reachesAncestor(
  shards: IndexShards,
  starts: ReadonlyMap<string, WalkUp>,
  target: { sessionKey: string; sessionId?: string },
  options: { depth: number; listedOnly: boolean },
): Promise<Set<string>> {
  const reached = new Set<string>();
  let current = new Map(starts);
  for (let depth = options.depth; current.size > 0; depth++) {
    for (const [id, step] of current)
      if (step.ancestor === target.sessionKey) {
        if (step.bound === null || target.sessionId === undefined || step.bound === target.sessionId)
          reached.add(id);
        current.delete(id);
      }
    if (depth >= MAX_TREE_DEPTH || current.size === 0) break;
    const spawners = await spawnersOf(
      shards,
      [...new Set([...current.values()].map((step) => step.ancestor))],
      options.listedOnly,
    );
    const next = new Map<string, WalkUp>();
    for (const [id, step] of current) {
      const up = spawners.get(step.ancestor);
      if (up?.spawnedBy) next.set(id, { ancestor: up.spawnedBy, bound: up.spawnedById });
    }
    current = next;
  }
  return reached;
}

/** The same read on every shard, its rows merged newest activity first (`newestFirst`), at most `limit`. */
export async function newestAcrossShards<Row extends RecencyRow>(
  shards: readonly IndexDb[],
  read: (db: IndexDb) => Promise<Row[]>,
  limit: number,
): Promise<Row[]> {
  const parts = await everyShard(shards, read);
  if (parts.length === 1) return parts[0] ?? [];
  return parts.flat().sort(newestFirst).slice(0, limit);
}
