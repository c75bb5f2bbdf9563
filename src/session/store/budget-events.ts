/**
 * What the session's own tables say about its budget (SPEC §20): its run starts in a window (the
 * `run_started` events: one per run, a resumed run is not a new start) and whether its chat was told
 * of a refusal already. Both read the event log by its time index, so no table of their own.
 */

/** When the session's runs started since `since`, oldest first. */
export function runStartsSince(sql: SqlStorage, since: number): number[] {
  return sql
    .exec<{ at: number }>(
      "SELECT occurred_at AS at FROM event WHERE kind = 'run_started' AND occurred_at > ? ORDER BY seq",
      since,
    )
    .toArray()
    .map((row) => row.at);
}

/** True when a refusal for `cause` told the chat since `since` (its `budget` event says `chatTold`). */
export function chatToldSince(sql: SqlStorage, cause: string, since: number): boolean {
  return (
    sql
      .exec(
        `SELECT 1 FROM event WHERE kind = 'budget' AND occurred_at >= ?
           AND json_extract(data, '$.cause') = ? AND json_extract(data, '$.chatTold') = 1 LIMIT 1`,
        since,
        cause,
      )
      .toArray().length > 0
  );
}
