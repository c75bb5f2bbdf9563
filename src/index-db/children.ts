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
}

// A requester controls at most this many children in one call; older ones drop out of `recent` anyway.
const MAX_CHILDREN = 200;

/** The sessions a session spawned, newest activity first (served by the `spawned_by` index). */
export async function listChildren(db: D1Database, sessionKey: string): Promise<ChildRow[]> {
  const { results } = await db
    .prepare(
      `SELECT session_key, label, spawn_task, last_run_id, status, model, total_tokens, runtime_ms, started_at, ended_at,
         created_at
       FROM session_index WHERE spawned_by = ? AND list_state IN (0, 1) ORDER BY recency DESC LIMIT ?`,
    )
    .bind(sessionKey, MAX_CHILDREN)
    .all<Record<string, string | number | null>>();
  const optional = <T>(value: T | null | undefined) =>
    value === null || value === undefined ? undefined : value;
  return results.map((row) => {
    const child: ChildRow = { sessionKey: String(row.session_key), createdAt: Number(row.created_at) };
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
