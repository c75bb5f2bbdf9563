/** The session key a run belongs to, from the run index (primary key lookup). */
export async function findRunSession(db: D1Database, runId: string): Promise<string | undefined> {
  const row = await db
    .prepare("SELECT session_key FROM run_index WHERE run_id = ?")
    .bind(runId)
    .first<{ session_key: string }>();
  return row?.session_key;
}
