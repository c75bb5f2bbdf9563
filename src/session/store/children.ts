// The `child` table (migrations 0020, 0022): the sessions this one spawned, each with the run it was
// spawned with, as their creation told it.

/**
 * Notes a child with its spawn's run; true when that is news (a new child, or a new run of a child
 * spawned again). A repeat (the child's outbox retried) writes nothing; a note without a run (a child
 * created without its spawn's turn) keeps the run already known.
 */
export function noteChild(
  sql: SqlStorage,
  childKey: string,
  runId: string | undefined,
  now: number,
): boolean {
  const cursor = sql.exec(
    `INSERT INTO child (session_key, noted_at, run_id) VALUES (?, ?, ?)
     ON CONFLICT (session_key) DO UPDATE SET run_id = excluded.run_id
       WHERE excluded.run_id IS NOT NULL AND child.run_id IS NOT excluded.run_id`,
    childKey,
    now,
    runId ?? null,
  );
  return cursor.rowsWritten > 0;
}

/** The run this session spawned a child with, if its creation said so. */
export function spawnRunOf(sql: SqlStorage, childKey: string): string | undefined {
  return (
    sql
      .exec<{ run_id: string | null }>("SELECT run_id FROM child WHERE session_key = ?", childKey)
      .toArray()[0]?.run_id ?? undefined
  );
}

/**
 * False only when this session is known never to have spawned: no child noted, and not a session from
 * before children were noted (its '*' row). The index is asked for children's counts otherwise.
 */
export function mayHaveChildren(sql: SqlStorage): boolean {
  return sql.exec("SELECT 1 FROM child LIMIT 1").toArray().length > 0;
}

/** The children noted here (not the '*' of a session older than the table). */
export function childKeys(sql: SqlStorage): string[] {
  return sql
    .exec<{ session_key: string }>("SELECT session_key FROM child WHERE session_key <> '*'")
    .toArray()
    .map((row) => row.session_key);
}

/** Forgets every child: a key created again after its deletion inherits none (SPEC §23 "Generations"). */
export function clearChildren(sql: SqlStorage): void {
  sql.exec("DELETE FROM child");
}
