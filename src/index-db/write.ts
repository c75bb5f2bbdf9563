import type { IndexColumns } from "../session/index-row";

/** Upserts a session's index row; an older version never overwrites a newer one. */
export async function upsertSessionIndex(db: D1Database, row: IndexColumns): Promise<void> {
  const columns = Object.keys(row);
  const updates = columns
    .filter((column) => column !== "session_key")
    .map((column) => `${column} = excluded.${column}`);
  await db
    .prepare(
      `INSERT INTO session_index (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})
       ON CONFLICT (session_key) DO UPDATE SET ${updates.join(", ")}
       WHERE excluded.version > session_index.version`,
    )
    .bind(...Object.values(row))
    .run();
}

/** Removes a session's index row, unless a newer version of the session was written since. */
export async function deleteSessionIndex(db: D1Database, sessionKey: string, version: number): Promise<void> {
  await db
    .prepare("DELETE FROM session_index WHERE session_key = ? AND version <= ?")
    .bind(sessionKey, version)
    .run();
}
