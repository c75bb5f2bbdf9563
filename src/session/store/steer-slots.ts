/** At most one steer per controlling session and child per this many ms (SPEC §5.6). */
export const STEER_INTERVAL_MS = 2000;

/** Records a steer unless the same controller steered this session too recently; true if allowed. */
export function takeSteerSlot(sql: SqlStorage, requesterKey: string, now: number): boolean {
  const last = sql
    .exec<{ at: number }>("SELECT at FROM steer WHERE requester_key = ?", requesterKey)
    .toArray()[0];
  if (last && now - last.at < STEER_INTERVAL_MS) return false;
  sql.exec(
    "INSERT INTO steer (requester_key, at) VALUES (?, ?) ON CONFLICT (requester_key) DO UPDATE SET at = excluded.at",
    requesterKey,
    now,
  );
  return true;
}

/** Empties the table (a new session replacing a deleted one's leftovers). */
export function clearSteers(sql: SqlStorage): void {
  sql.exec("DELETE FROM steer");
}
