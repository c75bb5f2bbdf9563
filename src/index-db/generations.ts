// A deleted session's last stateVersion, kept without its key's text (migrations/0013_generations.sql).

/** How long a deleted key's floor is kept: the event log's own retention (SPEC §13). */
export const FLOOR_KEEP_MS = 30 * 24 * 60 * 60 * 1000;

/** The SHA-256 of a session key, hex: what the floor is kept under instead of the key. */
async function keyHash(sessionKey: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(sessionKey));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** The last stateVersion of the key's deleted session, if one was deleted within FLOOR_KEEP_MS. */
export async function readStateFloor(db: D1Database, sessionKey: string): Promise<number | undefined> {
  const row = await db
    .prepare("SELECT state_version FROM session_floor WHERE key_hash = ?")
    .bind(await keyHash(sessionKey))
    .first<{ state_version: number }>();
  return row?.state_version;
}

/**
 * Keeps a deleted session's last stateVersion for its key's next session (never lowering one kept), and
 * prunes up to 100 floors past FLOOR_KEEP_MS: one batch.
 */
export async function writeStateFloor(
  db: D1Database,
  sessionKey: string,
  stateVersion: number,
  deletedAt: number,
): Promise<void> {
  await db.batch([
    db
      .prepare(
        `INSERT INTO session_floor (key_hash, state_version, deleted_at) VALUES (?, ?, ?)
         ON CONFLICT (key_hash) DO UPDATE SET state_version = MAX(state_version, excluded.state_version),
           deleted_at = excluded.deleted_at`,
      )
      .bind(await keyHash(sessionKey), stateVersion, deletedAt),
    db
      .prepare(
        `DELETE FROM session_floor WHERE key_hash IN (
           SELECT key_hash FROM session_floor WHERE deleted_at < ? ORDER BY deleted_at LIMIT 100)`,
      )
      .bind(deletedAt - FLOOR_KEEP_MS),
  ]);
}

/**
 * SQL: a session_index row (of alias `child`, when given) is a child of the spawner session `parentId`
 * (an SQL expression) and not of an earlier session of its key (SPEC §23 "Generations"): bound to it,
 * or not bound at all (spawned before children were bound).
 */
export const ownChild = (parentId: string, child?: string) => {
  const column = child === undefined ? "spawned_by_id" : `${child}.spawned_by_id`;
  return `(${column} IS NULL OR ${column} = ${parentId})`;
};

/**
 * `ownChild` in JS, for rows already read: a child row (by its `spawned_by_id`) belongs to its parent's
 * session `parentId` when unbound (from before children were bound: it goes by key) or bound to it; one
 * bound to a session no longer indexed (`parentId` undefined: deleted) belongs to none.
 */
export const ownChildOf = (spawnedById: unknown, parentId: string | undefined): boolean =>
  spawnedById === null || spawnedById === undefined || spawnedById === parentId;
