import type { IndexRow } from "../session/api";

/** The upsert of a session's index row; an older version never overwrites a newer one. */
export function sessionIndexUpsert(db: D1Database, row: IndexRow): D1PreparedStatement {
  const columns = Object.keys(row);
  const updates = columns
    .filter((column) => column !== "session_key")
    .map((column) => `${column} = excluded.${column}`);
  return db
    .prepare(
      `INSERT INTO session_index (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})
       ON CONFLICT (session_key) DO UPDATE SET ${updates.join(", ")}
       WHERE excluded.version > session_index.version`,
    )
    .bind(...Object.values(row));
}

/** runId → session key, once: a run's row in the run index. */
export function runIndexInsert(
  db: D1Database,
  run: { runId: string; sessionKey: string; createdAt: number; spawnerKey?: string },
): D1PreparedStatement {
  return db
    .prepare(
      "INSERT OR IGNORE INTO run_index (run_id, session_key, created_at, spawner_key) VALUES (?, ?, ?, ?)",
    )
    .bind(run.runId, run.sessionKey, run.createdAt, run.spawnerKey ?? null);
}

/** Removes a session's index row, unless a newer version of the session was written since. */
export async function deleteSessionIndex(db: D1Database, sessionKey: string, version: number): Promise<void> {
  await db
    .prepare("DELETE FROM session_index WHERE session_key = ? AND version <= ?")
    .bind(sessionKey, version)
    .run();
}

/**
 * Removes a deleted session's run index rows (those written before its deletion: the key may live again).
 * A collector child's rows stay: they are its spawner's, which finds its results through them after the
 * child is gone (agents_wait, for as long as the spawner keeps the results).
 */
export async function deleteSessionRuns(
  db: D1Database,
  sessionKey: string,
  deletedAt: number,
): Promise<void> {
  await db
    .prepare("DELETE FROM run_index WHERE session_key = ? AND created_at <= ? AND spawner_key IS NULL")
    .bind(sessionKey, deletedAt)
    .run();
}
