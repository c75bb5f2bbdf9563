// The `child` table (migration 0020): the sessions this one spawned, as their creation told it.

/** Notes a child; a repeat (the child's outbox retried) is a no-op. */
export function noteChild(sql: SqlStorage, childKey: string, now: number): void {
  sql.exec("INSERT INTO child (session_key, noted_at) VALUES (?, ?) ON CONFLICT DO NOTHING", childKey, now);
}

/**
 * False only when this session is known never to have spawned: no child noted, and not a session from
 * before children were noted (its '*' row). The index is asked for children's counts otherwise.
 */
export function mayHaveChildren(sql: SqlStorage): boolean {
  return sql.exec("SELECT 1 FROM child LIMIT 1").toArray().length > 0;
}
