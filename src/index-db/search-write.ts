/** The search index's writes (migrations/0007): what a session's index pass sends in its D1 batch. */

/** A message's row in the search index, as its session's index pass writes it. */
export interface SearchMessage {
  messageId: string;
  role: string;
  timestamp: number;
  text: string;
}

/**
 * Most bytes of messages (as JSON) one insert binds. D1 caps a statement at 100 KB, bound values
 * perhaps included: several messages share a statement only under it, and a larger message has one
 * of its own, as each message had before.
 */
const INSERT_JSON_BYTES = 90 * 1024;

/**
 * A chunk's messages of one session, in as few statements as the size allows: one statement updates
 * AUTOINCREMENT's sqlite_sequence row once, however many rows it inserts (D1 bills each write). A row
 * already there (a retried batch) is left as it is. Only while the session's index row of that
 * generation exists: a batch still in flight when the session's delete landed (its trigger took the
 * rows) writes nothing, so a deleted session's text cannot stay behind.
 */
export function searchMessagesInsert(
  db: D1Database,
  session: { sessionKey: string; sessionId: string; scope: string },
  messages: readonly SearchMessage[],
): D1PreparedStatement[] {
  const statement = db.prepare(
    `INSERT OR IGNORE INTO search_message
       (session_key, session_id, message_id, role, timestamp, text, scope)
     SELECT ?1, ?2, m.value ->> 0, m.value ->> 1, m.value ->> 2, m.value ->> 3, ?3 FROM json_each(?4) AS m
     WHERE EXISTS (SELECT 1 FROM session_index WHERE session_key = ?1 AND session_id = ?2)`,
  );
  const encoder = new TextEncoder();
  const groups: string[][] = [];
  let group: string[] = [];
  let bytes = 0;
  for (const { messageId, role, timestamp, text } of messages) {
    const json = JSON.stringify([messageId, role, timestamp, text]);
    const size = encoder.encode(json).byteLength + 1;
    if (group.length > 0 && bytes + size > INSERT_JSON_BYTES) {
      groups.push(group);
      group = [];
      bytes = 0;
    }
    group.push(json);
    bytes += size;
  }
  if (group.length > 0) groups.push(group);
  return groups.map((group) =>
    statement.bind(session.sessionKey, session.sessionId, session.scope, `[${group.join(",")}]`),
  );
}

/** Removes the search rows of messages trimmed from a session's transcript (SPEC §23 `maxMessages`). */
export function searchRowsForget(
  db: D1Database,
  sessionId: string,
  messageIds: readonly string[],
): D1PreparedStatement {
  return db
    .prepare(
      `DELETE FROM search_message WHERE session_id = ?
         AND message_id IN (SELECT value FROM json_each(?))`,
    )
    .bind(sessionId, JSON.stringify(messageIds));
}

/**
 * Whether the session's index row of this generation is there: a chunk's inserts write nothing without
 * it, so the chunk counts as written only if it was (its session row's write may still be retrying).
 */
export function searchSessionPresent(
  db: D1Database,
  sessionKey: string,
  sessionId: string,
): D1PreparedStatement {
  return db
    .prepare(
      "SELECT EXISTS (SELECT 1 FROM session_index WHERE session_key = ? AND session_id = ?) AS present",
    )
    .bind(sessionKey, sessionId);
}

/**
 * Marks the session's index row as behind (sessions_search answers `indexing`) or caught up; writes
 * only when that changes it (an UPDATE setting a column to its own value still costs a row written).
 */
export function searchBacklogFlag(
  db: D1Database,
  sessionKey: string,
  sessionId: string,
  behind: boolean,
): D1PreparedStatement {
  return db
    .prepare(
      `UPDATE session_index SET search_backlog = ?1
       WHERE session_key = ?2 AND session_id = ?3 AND search_backlog != ?1`,
    )
    .bind(behind ? 1 : 0, sessionKey, sessionId);
}
