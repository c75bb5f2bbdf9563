import type { VisibleScope } from "../policy/visibility";
import { ownChild } from "./generations";
import { type Clause, visibleCondition } from "./list";
import { everyShard, type IndexShards, keyShard, newestFirst, RECENCY_COLUMNS, scopeShards } from "./shards";
import { MAX_TREE_DEPTH, newestAcrossShards, walkDownLevels } from "./walk";

/** A sub-agent session as `subagents` sees it, from the index. */
export interface ChildRow {
  sessionKey: string;
  label?: string;
  task?: string;
  runId?: string;
  status?: string;
  model?: string;
  totalTokens?: number;
  runtimeMs?: number;
  startedAt?: number;
  endedAt?: number;
  createdAt: number;
  /** A collector (SPEC §15): its result is collected with agents_wait, never announced. */
  collector?: boolean;
}

// A requester controls at most this many children in one call; older ones drop out of `recent` anyway.
const MAX_CHILDREN = 200;

/**
 * The sessions a session spawned, newest activity first (served by the `spawned_by` index). Without
 * collectors (`collectors: false`) they are left out before the limit, so that they cannot crowd out the
 * children that count. Children may be of other agents (allowAgents): every shard is read and merged.
 */
export async function listChildren(
  shards: IndexShards,
  sessionKey: string,
  options: { collectors?: boolean; parentSessionId?: string } = {},
): Promise<ChildRow[]> {
  const only = options.collectors === false ? "AND collector = 0" : "";
  // Only the children of the parent's live session (SPEC §23): its id as its index row has it, unless told.
  const parentId = options.parentSessionId ?? (await indexedSessionId(shards, sessionKey));
  const results = await newestAcrossShards(
    shards,
    async (db) =>
      (
        await db
          .prepare(
            `SELECT session_key, label, spawn_task, last_run_id, status, model, total_tokens, runtime_ms, started_at,
               ended_at, created_at, collector, ${RECENCY_COLUMNS}
             FROM session_index WHERE spawned_by = ? AND ${ownChild("?")}
               AND list_state IN (0, 1) ${only} ORDER BY recency DESC LIMIT ?`,
          )
          .bind(sessionKey, parentId ?? null, MAX_CHILDREN)
          .all<Record<string, string | number | null> & { updated_at: number; recency_tiebreak: number }>()
      ).results,
    MAX_CHILDREN,
  );
  const optional = <T>(value: T | null | undefined) =>
    value === null || value === undefined ? undefined : value;
  return results.map((row) => {
    const child: ChildRow = {
      sessionKey: String(row.session_key),
      createdAt: Number(row.created_at),
      ...(row.collector ? { collector: true } : {}),
    };
    const fields: [keyof ChildRow, unknown][] = [
      ["label", optional(row.label)],
      ["task", optional(row.spawn_task)],
      ["runId", optional(row.last_run_id)],
      ["status", optional(row.status)],
      ["model", optional(row.model)],
      ["totalTokens", optional(row.total_tokens)],
      ["runtimeMs", optional(row.runtime_ms)],
      ["startedAt", optional(row.started_at)],
      ["endedAt", optional(row.ended_at)],
    ];
    for (const [name, value] of fields) if (value !== undefined) Object.assign(child, { [name]: value });
    return child;
  });
}

/** A session's id as its index row has it (its key's shard, by primary key); undefined when not indexed. */
async function indexedSessionId(shards: IndexShards, sessionKey: string): Promise<string | undefined> {
  const row = await keyShard(shards, sessionKey)
    .prepare("SELECT session_id FROM session_index WHERE session_key = ?")
    .bind(sessionKey)
    .first<{ session_id: string }>();
  return row?.session_id;
}

/** A row of `childKeysStatement`: one visible child of a parent, newest first within its parent. */
export interface ChildKeyRow {
  spawned_by: string;
  /** The parent's session that spawned it (SPEC §23); null for a child from before it was kept. */
  spawned_by_id: string | null;
  session_key: string;
  updated_at: number;
  recency_tiebreak: number;
}

/**
 * The visible children of the parents `parents` names (a condition's SQL and values: a JSON array of keys,
 * or a list page's own statement as a subquery, list-page.ts), at most MAX_CHILDREN each, served by the
 * `spawned_by` index — named: with `IN (subquery)` SQLite's planner otherwise walked every listed row by
 * `session_index_recent` (30 ms at 100,000 sessions against 1); undefined when the scope can see nothing.
 */
export function childKeysStatement(parents: Clause, scope: VisibleScope): Clause | undefined {
  const visible = visibleCondition(scope);
  if (!visible) return undefined;
  return {
    sql: `SELECT spawned_by, spawned_by_id, session_key, updated_at, recency_tiebreak FROM (
           SELECT spawned_by, spawned_by_id, session_key, ${RECENCY_COLUMNS},
             ROW_NUMBER() OVER (PARTITION BY spawned_by ORDER BY recency DESC) AS n
           FROM session_index INDEXED BY session_index_spawned_by
           WHERE spawned_by IN (${parents.sql}) AND list_state IN (0, 1)
             ${visible.sql ? `AND ${visible.sql}` : ""}
         ) WHERE n <= ${MAX_CHILDREN} ORDER BY spawned_by, n`,
    params: [...parents.params, ...visible.params],
  };
}

/**
 * `childKeysStatement`'s rows as parent → child keys, newest first, at most MAX_CHILDREN each. With the
 * parents' session ids, a child bound to another session of its parent's key (a deleted one's) is left
 * out (SPEC §23 "Generations").
 */
export function childKeysOf(
  rows: readonly ChildKeyRow[],
  parentIds?: ReadonlyMap<string, string>,
): Map<string, string[]> {
  const children = new Map<string, string[]>();
  for (const row of rows) {
    if (parentIds && row.spawned_by_id !== null && parentIds.get(row.spawned_by) !== row.spawned_by_id)
      continue;
    const keys = children.get(row.spawned_by) ?? [];
    if (keys.length < MAX_CHILDREN) keys.push(row.session_key);
    children.set(row.spawned_by, keys);
  }
  return children;
}

/**
 * For each of these sessions, the keys of its children the requester may see (its scope, as the list
 * query applies it), newest activity first, at most MAX_CHILDREN each: one query for a whole page, the
 * parents bound as one JSON array (served by the `spawned_by` index), in each shard the scope reaches
 * (`scopeShards`: an agent's tree is its shard; visibility `all` every shard, merged).
 */
export async function visibleChildKeys(
  shards: IndexShards,
  sessionKeys: readonly string[],
  scope: VisibleScope,
  parentIds?: ReadonlyMap<string, string>,
): Promise<Map<string, string[]>> {
  return childKeysOf(await visibleChildRows(shards, sessionKeys, scope), parentIds);
}

/** `visibleChildKeys`'s rows, newest first, for a caller that learns the parents' session ids meanwhile. */
export async function visibleChildRows(
  shards: IndexShards,
  sessionKeys: readonly string[],
  scope: VisibleScope,
): Promise<ChildKeyRow[]> {
  const parents = { sql: "SELECT value FROM json_each(?)", params: [JSON.stringify(sessionKeys)] };
  const statement = childKeysStatement(parents, scope);
  if (sessionKeys.length === 0 || !statement) return [];
  const parts = await everyShard(scopeShards(shards, scope), async (db) => {
    const { results } = await db
      .prepare(statement.sql)
      .bind(...statement.params)
      .all<ChildKeyRow>();
    return results;
  });
  return parts.length === 1 ? (parts[0] ?? []) : parts.flat().sort(newestFirst);
}

// D1 binds at most 100 parameters per statement.
const KEYS_PER_READ = 90;

/**
 * The walk down the spawn tree (SQL, a `WITH` clause defining `down`) from the listed sessions' children,
 * those matching `start` (a condition on session_index `s`): one row per descendant with the root it
 * descends from and its depth. Archived sessions are walked too; hidden ones end their branch. Each step
 * goes to the children of the parent's session, not of its key (SPEC §23 "Generations": a child of an
 * earlier session of the key, deleted since, is not in the tree of the key's session now).
 */
export const walkDown = (start: string) => `WITH RECURSIVE down(root, session_key, session_id, depth) AS (
    SELECT s.spawned_by, s.session_key, s.session_id, 1 FROM session_index s
      LEFT JOIN session_index p ON p.session_key = s.spawned_by
      WHERE (${start}) AND s.list_state IN (0, 1) AND ${ownChild("p.session_id", "s")}
    UNION ALL
    SELECT down.root, s.session_key, s.session_id, down.depth + 1 FROM session_index s
      JOIN down ON s.spawned_by = down.session_key
      WHERE down.depth < ${MAX_TREE_DEPTH} AND s.list_state IN (0, 1) AND ${ownChild("down.session_id", "s")}
  )`;

/**
 * For each of these sessions, how many of its descendants have a run in flight (or none yet): one
 * recursive read with one shard, a walk level by level across several.
 */
export async function pendingDescendants(
  shards: IndexShards,
  sessionKeys: readonly string[],
): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  if (shards.length > 1) {
    for (const node of await walkDownLevels(shards, sessionKeys))
      if (node.row.status === null || node.row.status === "running")
        counts.set(node.root, (counts.get(node.root) ?? 0) + 1);
    return counts;
  }
  const [db] = shards;
  for (let start = 0; start < sessionKeys.length; start += KEYS_PER_READ) {
    const keys = sessionKeys.slice(start, start + KEYS_PER_READ);
    const { results } = await db
      .prepare(
        `${walkDown(`s.spawned_by IN (${keys.map(() => "?").join(", ")})`)}
         SELECT down.root, COUNT(*) AS n FROM down JOIN session_index s ON s.session_key = down.session_key
           WHERE s.status IS NULL OR s.status = 'running' GROUP BY down.root`,
      )
      .bind(...keys)
      .all<{ root: string; n: number }>();
    for (const row of results) counts.set(row.root, row.n);
  }
  return counts;
}

/** A session's descendants (children, theirs, …), parents before children, as the index has them. */
export async function descendants(
  shards: IndexShards,
  sessionKey: string,
): Promise<{ sessionKey: string; agentId: string; spawnedBy: string }[]> {
  if (shards.length > 1) {
    const nodes = await walkDownLevels(shards, [sessionKey], MAX_CHILDREN);
    return nodes.slice(0, MAX_CHILDREN).map(({ row }) => ({
      sessionKey: String(row.session_key),
      agentId: String(row.agent_id),
      spawnedBy: String(row.spawned_by),
    }));
  }
  const { results } = await shards[0]
    .prepare(
      `${walkDown("s.spawned_by = ?")}
       SELECT s.session_key, s.agent_id, s.spawned_by FROM down JOIN session_index s ON s.session_key = down.session_key
         ORDER BY down.depth LIMIT ${MAX_CHILDREN}`,
    )
    .bind(sessionKey)
    .all<{ session_key: string; agent_id: string; spawned_by: string }>();
  return results.map((row) => ({
    sessionKey: row.session_key,
    agentId: row.agent_id,
    spawnedBy: row.spawned_by,
  }));
}
