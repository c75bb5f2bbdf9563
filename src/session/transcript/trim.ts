import { addToOutbox } from "../store/outbox-store";

/** Messages removed per pass: one bounded delete, and one search-forget entry of at most this many ids. */
export const TRIM_BATCH = 100;

/**
 * SPEC §23 `maxMessages`: the oldest messages beyond the newest `maxMessages` leave the transcript, but
 * only those the compaction summary already covers (a later prompt starts from it, so nothing the model
 * sees is lost), and never the message of a run still to come. Their search rows are owed to D1 in the
 * same transaction (`search_forget`). Numbering stays as it was (`seq` and `chat_seq` only grow): the
 * counts stay totals, and a history page reaching below the oldest kept message says so (`historyGap`).
 * Returns how many messages left.
 */
export function trimTranscript(sql: SqlStorage, maxMessages: number, now: number): number {
  const bound = sql
    .exec<{ through: number | null; newest: number | null }>(
      `SELECT (SELECT through_seq FROM compaction WHERE id = 1) AS through,
              (SELECT MAX(seq) FROM message) AS newest`,
    )
    .one();
  if (bound.through === null || bound.newest === null) return 0;
  const upTo = Math.min(bound.through, bound.newest - maxMessages);
  if (upTo < 1) return 0;
  const rows = sql
    .exec<{ seq: number; id: string }>(
      `SELECT seq, id FROM message WHERE seq <= ?
         AND id NOT IN (SELECT trigger_message_id FROM run
                        WHERE status IN ('queued', 'running') AND trigger_message_id IS NOT NULL)
       ORDER BY seq LIMIT ?`,
      upTo,
      TRIM_BATCH,
    )
    .toArray();
  const last = rows.at(-1);
  if (!last) return 0;
  sql.exec(
    "DELETE FROM message WHERE seq IN (SELECT value FROM json_each(?))",
    JSON.stringify(rows.map((row) => row.seq)),
  );
  addToOutbox(
    sql,
    "search_forget",
    `search_forget:${last.seq}`,
    { messageIds: rows.map((row) => row.id) },
    now,
  );
  return rows.length;
}

/** The oldest message still kept (1 when nothing was trimmed, or the transcript is empty). */
export function oldestKeptSeq(sql: SqlStorage, column: "seq" | "chat_seq"): number {
  return (
    sql.exec<{ oldest: number | null }>(`SELECT MIN(${column}) AS oldest FROM message`).one().oldest ?? 1
  );
}

/** How many messages the transcript keeps (trimming removes its oldest end, so no count scan is needed). */
export function keptMessages(sql: SqlStorage): number {
  const row = sql.exec<{ n: number | null }>("SELECT MAX(seq) - MIN(seq) + 1 AS n FROM message").one();
  return row.n ?? 0;
}
