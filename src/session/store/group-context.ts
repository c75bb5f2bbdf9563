import type { TranscriptMessage } from "../../transcript/message";

/**
 * Holds an unaddressed group message (table `group_context`), keeping only the newest `keep`; false
 * when it is held already (a redelivery).
 */
export function holdGroupContext(sql: SqlStorage, message: TranscriptMessage, keep: number): boolean {
  if (sql.exec("SELECT 1 FROM group_context WHERE id = ?", message.id).toArray().length > 0) return false;
  sql.exec("INSERT INTO group_context (id, body) VALUES (?, ?)", message.id, JSON.stringify(message));
  sql.exec(
    "DELETE FROM group_context WHERE seq NOT IN (SELECT seq FROM group_context ORDER BY seq DESC LIMIT ?)",
    keep,
  );
  return true;
}

/** The held group messages, oldest first, and the table emptied: they go into the transcript now. */
export function takeGroupContext(sql: SqlStorage): TranscriptMessage[] {
  const held = sql
    .exec<{ body: string }>("SELECT body FROM group_context ORDER BY seq")
    .toArray()
    .map((row) => JSON.parse(row.body) as TranscriptMessage);
  if (held.length > 0) sql.exec("DELETE FROM group_context");
  return held;
}

/** Forgets what is held (a new session replacing a deleted one's leftovers). */
export function clearGroupContext(sql: SqlStorage): void {
  sql.exec("DELETE FROM group_context");
}
