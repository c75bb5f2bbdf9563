import { walkDown } from "./children";
import type { IndexShards } from "./shards";
import { walkDownLevels } from "./walk";

/** One sub-agent in a session's spawn tree, as the index has it (the console's tree view). */
export interface TreeNode {
  sessionKey: string;
  spawnedBy: string;
  label?: string;
  task?: string;
  /** The session's status: its last run's (`running`, `done`, …); absent before its first run ends. */
  status?: string;
  startedAt?: number;
  endedAt?: number;
  totalTokens?: number;
  updatedAt: number;
}

// Enough for any tree a person reads on one page; `subagents` controls at most this many children too.
const MAX_NODES = 200;

/** A tree's rows, parents before children and the newest activity first within a level. */
async function treeRows(shards: IndexShards, sessionKey: string): Promise<Record<string, unknown>[]> {
  // Several shards: a tree may cross agents, so it is walked level by level (walk.ts).
  if (shards.length > 1)
    return (await walkDownLevels(shards, [sessionKey], MAX_NODES))
      .slice(0, MAX_NODES)
      .map((node) => node.row);
  const { results } = await shards[0]
    .prepare(
      `${walkDown("s.spawned_by = ?")}
       SELECT s.session_key, s.spawned_by, s.label, s.spawn_task, s.status, s.started_at, s.ended_at,
         s.total_tokens, s.updated_at
       FROM down JOIN session_index s ON s.session_key = down.session_key
       ORDER BY down.depth, s.recency DESC LIMIT ${MAX_NODES}`,
    )
    .bind(sessionKey)
    .all<Record<string, string | number | null>>();
  return results;
}

/**
 * A session's descendants (children, theirs, …) with what the tree shows of each, parents before
 * children and the newest activity first among siblings: one recursive read of the `spawned_by` index.
 */
export async function spawnTree(shards: IndexShards, sessionKey: string): Promise<TreeNode[]> {
  return (await treeRows(shards, sessionKey)).map((row) => {
    const node: TreeNode = {
      sessionKey: String(row.session_key),
      spawnedBy: String(row.spawned_by),
      updatedAt: Number(row.updated_at),
    };
    const text = (value: unknown) => (typeof value === "string" ? value : undefined);
    const count = (value: unknown) => (typeof value === "number" ? value : undefined);
    const fields: [keyof TreeNode, unknown][] = [
      ["label", text(row.label)],
      ["task", text(row.spawn_task)],
      ["status", text(row.status)],
      ["startedAt", count(row.started_at)],
      ["endedAt", count(row.ended_at)],
      ["totalTokens", count(row.total_tokens)],
    ];
    for (const [name, value] of fields) if (value !== undefined) Object.assign(node, { [name]: value });
    return node;
  });
}
