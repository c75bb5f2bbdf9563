import { type IndexShards, keyShard } from "./shards";

// Erasure's D1 side (SPEC §23): the search rows of erased messages, the FTS segments that still hold
// deleted text, and the sessions a person's erasure reaches.

/** D1 allows 100 bound parameters: ids go in batches under it. */
const IDS_PER_STATEMENT = 90;

/** Deletes the search rows of these messages of a session (idempotent); answers the rows deleted. */
export async function deleteSearchRows(
  shards: IndexShards,
  sessionKey: string,
  messageIds: readonly string[],
): Promise<number> {
  const db = keyShard(shards, sessionKey);
  const statements: D1PreparedStatement[] = [];
  for (let at = 0; at < messageIds.length; at += IDS_PER_STATEMENT) {
    const ids = messageIds.slice(at, at + IDS_PER_STATEMENT);
    statements.push(
      db
        .prepare(
          // By the key's current session id (every row of a key is its index row's generation's:
          // migrations/0017), through the (session_id, message_id) unique index. Counted by RETURNING:
          // D1's `changes` counts the FTS trigger's writes too.
          `DELETE FROM search_message
           WHERE session_id = (SELECT session_id FROM session_index WHERE session_key = ?)
             AND message_id IN (${ids.map(() => "?").join(", ")})
           RETURNING id`,
        )
        .bind(sessionKey, ...ids),
    );
  }
  if (statements.length === 0) return 0;
  const results = await db.batch(statements);
  return results.reduce((sum, result) => sum + result.results.length, 0);
}

/**
 * Merges every shard's FTS segments into one, which drops what deleted rows left in them: after an
 * erasure no segment keeps the text (FTS5 `optimize`, both the message index and the sessions' own).
 */
export async function optimizeSearch(shards: IndexShards): Promise<void> {
  await Promise.all(
    shards.map((db) =>
      db.batch([
        db.prepare("INSERT INTO search_fts (search_fts) VALUES ('optimize')"),
        db.prepare("INSERT INTO session_search (session_search) VALUES ('optimize')"),
      ]),
    ),
  );
}

/** Keys are lower-cased; LIKE's own wildcards in an id are escaped. */
function likeId(value: string): string {
  return value.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Most sessions one request reaches; a person with more is erased by asking again. */
export const MAX_ERASED_SESSIONS = 500;

/**
 * The direct sessions of one sender on one channel (key `…:<channel>:…direct:<senderId>`, with or
 * without a thread), on every shard. A shared main session (`session.dmScope: "main"`) is not theirs alone
 * and is not found here: its messages are erased as a group's are.
 */
export async function directSessionsOf(
  shards: IndexShards,
  channel: string,
  senderId: string,
): Promise<string[]> {
  const id = likeId(senderId);
  const found = await Promise.all(
    shards.map((db) =>
      db
        .prepare(
          `SELECT session_key FROM session_index WHERE channel = ? AND chat_type = 'direct'
             AND (session_key LIKE ? ESCAPE '\\' OR session_key LIKE ? ESCAPE '\\') LIMIT ${MAX_ERASED_SESSIONS}`,
        )
        .bind(channel, `%:direct:${id}`, `%:direct:${id}:%`)
        .all<{ session_key: string }>(),
    ),
  );
  return found.flatMap(({ results }) => results.map((row) => row.session_key));
}

/** Keys read per page of a channel's shared sessions. */
const SHARED_PAGE = 500;

/**
 * The sessions of a channel not one peer's own (groups, channels, a shared main), every shard, read in
 * pages of keys (keyset on the key): a group is erased in place, so a person in many groups is reached in
 * one request.
 */
export async function sharedSessionsOf(shards: IndexShards, channel: string): Promise<string[]> {
  const keys: string[] = [];
  for (const db of shards) {
    let after = "";
    for (;;) {
      const { results } = await db
        .prepare(
          `SELECT session_key FROM session_index WHERE session_key > ? AND (channel = ? OR last_channel = ?)
             AND session_key NOT LIKE '%:direct:%' ORDER BY session_key LIMIT ${SHARED_PAGE}`,
        )
        .bind(after, channel, channel)
        .all<{ session_key: string }>();
      keys.push(...results.map((row) => row.session_key));
      const last = results.at(-1);
      if (!last || results.length < SHARED_PAGE) break;
      after = last.session_key;
    }
  }
  return keys;
}
