/** The search index's writes (migrations/0007): what a session's index pass sends in its D1 batch. */

/**
 * One message's row; a row already there (a retried batch) is left as it is. Only while the session's
 * index row of that generation exists: a batch still in flight when the session's delete landed (its
 * trigger took the rows) writes nothing, so a deleted session's text cannot stay behind.
 */
export function searchMessageInsert(
  db: D1Database,
  row: {
    sessionKey: string;
    sessionId: string;
    messageId: string;
    role: string;
    timestamp: number;
    text: string;
    scope: string;
  },
): D1PreparedStatement {
  return db
    .prepare(
      `INSERT OR IGNORE INTO search_message
         (session_key, session_id, message_id, role, timestamp, text, scope)
       SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7
       WHERE EXISTS (SELECT 1 FROM session_index WHERE session_key = ?1 AND session_id = ?2)`,
    )
    .bind(row.sessionKey, row.sessionId, row.messageId, row.role, row.timestamp, row.text, row.scope);
}

/**
 * Removes what an earlier session of the same key left (its delete never reached the index): a
 * re-created key starts with an empty index.
 */
export function searchLeftoversDelete(
  db: D1Database,
  sessionKey: string,
  sessionId: string,
): D1PreparedStatement {
  return db
    .prepare("DELETE FROM search_message WHERE session_key = ? AND session_id != ?")
    .bind(sessionKey, sessionId);
}

/** Removes the search rows of messages trimmed from a session's transcript (SPEC §23 `maxMessages`). */
export function searchRowsForget(
  db: D1Database,
  sessionKey: string,
  sessionId: string,
  messageIds: readonly string[],
): D1PreparedStatement {
  return db
    .prepare(
      `DELETE FROM search_message WHERE session_key = ? AND session_id = ?
         AND message_id IN (SELECT value FROM json_each(?))`,
    )
    .bind(sessionKey, sessionId, JSON.stringify(messageIds));
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

/** Marks the session's index row as behind (sessions_search answers `indexing`) or caught up. */
export function searchBacklogFlag(
  db: D1Database,
  sessionKey: string,
  sessionId: string,
  behind: boolean,
): D1PreparedStatement {
  return db
    .prepare("UPDATE session_index SET search_backlog = ? WHERE session_key = ? AND session_id = ?")
    .bind(behind ? 1 : 0, sessionKey, sessionId);
}
