import type { IndexRow } from "../session/api";

/**
 * Columns set on every update, changed or not: `status` may have been set behind the session's back
 * (`claimSubagentSlot` marks a sub-agent running), and `version` orders the writes.
 */
const ALWAYS_SET = new Set(["version", "status"]);

/**
 * The next free `recency` of the row's new millisecond (migrations/0003), as the insert trigger takes it.
 * Written only where the upsert's WHERE holds, like every other column of the SET list.
 */
const RESLOT = `recency = (
  SELECT COALESCE(MAX(recency) + 1, excluded.updated_at * 1048576) FROM session_index
  WHERE recency BETWEEN excluded.updated_at * 1048576 AND excluded.updated_at * 1048576 + 1048575)`;

/**
 * The upsert of a session's index row; an older version never overwrites a newer one. With `landed` (the
 * row as the session's last write that landed), an existing row has only the columns that differ set:
 * each indexed column in the SET list costs its index entries (and the list search's trigram rows), even
 * unchanged (SPEC §24 "only what changed"). A new row is inserted whole. Undefined when nothing differs.
 */
export function sessionIndexUpsert(db: D1Database, row: IndexRow): D1PreparedStatement;
export function sessionIndexUpsert(
  db: D1Database,
  row: IndexRow,
  landed: IndexRow | undefined,
): D1PreparedStatement | undefined;
export function sessionIndexUpsert(
  db: D1Database,
  row: IndexRow,
  landed?: IndexRow,
): D1PreparedStatement | undefined {
  const columns = Object.keys(row);
  const changed = columns.filter(
    (column) => column !== "session_key" && (landed === undefined || landed[column] !== row[column]),
  );
  // A sub-agent's row may have been claimed meanwhile (its status): it is always written.
  const unchanged = changed.every((column) => column === "version") && row.spawned_by === null;
  if (landed !== undefined && unchanged) return undefined;
  const updates = [...new Set([...changed, ...ALWAYS_SET])]
    .filter((column) => column in row)
    .map((column) => `${column} = excluded.${column}`);
  // A move re-slots the row in this same write (the trigger would write it a second time: migrations/0016).
  if (changed.includes("updated_at")) updates.push(RESLOT);
  return db
    .prepare(
      `INSERT INTO session_index (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})
       ON CONFLICT (session_key) DO UPDATE SET ${updates.join(", ")}
       WHERE excluded.version > session_index.version`,
    )
    .bind(...Object.values(row));
}

/** runId → session key, once: a run's row in the run index. */
export function runIndexInsert(
  db: D1Database,
  run: { runId: string; sessionKey: string; createdAt: number; spawnerKey?: string },
): D1PreparedStatement {
  return db
    .prepare(
      "INSERT OR IGNORE INTO run_index (run_id, session_key, created_at, spawner_key) VALUES (?, ?, ?, ?)",
    )
    .bind(run.runId, run.sessionKey, run.createdAt, run.spawnerKey ?? null);
}

/** Removes a session's index row, unless a newer version of the session was written since. */
export async function deleteSessionIndex(db: D1Database, sessionKey: string, version: number): Promise<void> {
  await db
    .prepare("DELETE FROM session_index WHERE session_key = ? AND version <= ?")
    .bind(sessionKey, version)
    .run();
}

/**
 * Removes a deleted session's run index rows (those written before its deletion: the key may live again).
 * A collector child's rows stay: they are its spawner's, which finds its results through them after the
 * child is gone (agents_wait, for as long as the spawner keeps the results).
 */
export async function deleteSessionRuns(
  db: D1Database,
  sessionKey: string,
  deletedAt: number,
): Promise<void> {
  await db
    .prepare("DELETE FROM run_index WHERE session_key = ? AND created_at <= ? AND spawner_key IS NULL")
    .bind(sessionKey, deletedAt)
    .run();
}
