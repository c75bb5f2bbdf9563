// SPEC §23 `searchRetention` without an index on time (migrations/0019). `search_message.id` is
// AUTOINCREMENT: it only grows, in the order rows were indexed, and a message is indexed after it was
// written, so a row whose timestamp is past a cutoff (and not in the future) marks the point after which
// every row was indexed after that cutoff: the walk's edge. An agent's pass walks the primary key from
// its cursor to that edge, a bounded range of ids per statement, deleting its rows older than their
// kind's cutoff, and keeps the cursor (table `search_retention_walk`, one row per agent and policy: a
// changed policy walks again from the start) so no pass walks the same ids twice.
// Rows past the edge whose messages are older (a backlog indexed late: an import) wait until the edge
// passes them, about searchRetention after they were indexed.

/** Ids of `search_message` one statement walks at most: a range of its primary key, never the table. */
export const WALK_IDS = 50_000;
/** Ranges an agent's pass walks per shard per call (two statements each), so a call stays short. */
export const WALK_RANGES = 4;

/** Kinds of an agent's sessions that keep their search rows `retentionMs` (equal ones walk together). */
export interface SearchRetention {
  retentionMs: number;
  kinds: readonly string[];
}

/** What one call did in one shard; `done` false while a walk stopped short of its edge. */
export interface SearchPruned {
  deleted: number;
  done: boolean;
}

/**
 * Deletes up to `limit` search rows of one agent's sessions older than their kind's retention, walking
 * at most `WALK_RANGES` ranges of ids; resumes where the agent's previous call stopped.
 */
export async function pruneSearchRows(
  db: D1Database,
  request: { agentId: string; retentions: readonly SearchRetention[]; now: number; limit: number },
): Promise<SearchPruned> {
  const { agentId, now } = request;
  if (request.retentions.length === 0) return { deleted: 0, done: true };
  // Ids at or past `top` are indexed after this read (AUTOINCREMENT ids exceed every id ever used):
  // a walk never passes it, so no row indexed meanwhile is skipped.
  const [ends, cursors] = await db.batch<{ low?: number; top?: number; policy?: string; next_id?: number }>([
    db.prepare(
      `SELECT (SELECT MIN(id) FROM search_message) AS low,
              (SELECT COALESCE(MAX(id), 0) + 1 FROM search_message) AS top`,
    ),
    db.prepare("SELECT policy, next_id FROM search_retention_walk WHERE agent_id = ?").bind(agentId),
  ]);
  // No row in the shard: nothing to walk, and every cursor stays where it is.
  if (ends?.results[0]?.low == null) return { deleted: 0, done: true };
  const low = ends.results[0].low;
  const top = ends.results[0].top ?? 1;
  const walked = new Map((cursors?.results ?? []).map((row) => [row.policy, row.next_id ?? 0]));
  let deleted = 0;
  let ranges = 0;
  let done = true;
  for (const { retentionMs, kinds } of request.retentions) {
    const before = now - retentionMs;
    const policy = `${retentionMs}:${[...kinds].sort().join(",")}`;
    const start = walked.get(policy) ?? 0;
    let from = Math.max(start, low);
    for (;;) {
      if (from >= top) break;
      if (ranges === WALK_RANGES || deleted === request.limit) {
        done = false;
        break;
      }
      const to = Math.min(from + WALK_IDS, top);
      const left = request.limit - deleted;
      const [edge, removed] = await db.batch<{ edge?: number | null; next?: number | null }>([
        walkEdge(db, from, to, before, now),
        pruneRange(db, { agentId, kinds, from, to, before, limit: left }),
      ]);
      ranges += 1;
      // Rows deleted: the RETURNING rows (`meta.changes` counts the triggers' FTS writes too).
      const changes = removed?.results.length ?? 0;
      deleted += changes;
      // A full batch may have left rows of the range: the next call walks it again from its start.
      if (changes === left) {
        done = false;
        break;
      }
      const found = edge?.results[0];
      if (typeof found?.edge === "number") {
        from = found.edge;
        break;
      }
      // Past a gap of deleted ids straight to the next row (never past `top`: a row indexed since the
      // call began is the next call's).
      from = Math.min(found?.next ?? top, top);
    }
    if (from !== start) await saveCursor(db, agentId, policy, from);
  }
  return { deleted, done };
}

/**
 * The first id of the range whose row is of the cutoff or later (not in the future), if any; and the
 * first id after the range (a seek of the primary key).
 */
function walkEdge(
  db: D1Database,
  from: number,
  to: number,
  before: number,
  now: number,
): D1PreparedStatement {
  return db
    .prepare(
      `SELECT (SELECT MIN(id) FROM search_message
               WHERE id >= ?1 AND id < ?2 AND timestamp >= ?3 AND timestamp <= ?4) AS edge,
              (SELECT MIN(id) FROM search_message WHERE id >= ?2) AS next`,
    )
    .bind(from, to, before, now);
}

/** Deletes, oldest first, the agent's rows of these kinds in the range older than `before`. */
function pruneRange(
  db: D1Database,
  range: {
    agentId: string;
    kinds: readonly string[];
    from: number;
    to: number;
    before: number;
    limit: number;
  },
): D1PreparedStatement {
  const kinds = range.kinds.map(() => "?").join(", ");
  return db
    .prepare(
      `DELETE FROM search_message WHERE id IN (
         SELECT m.id FROM search_message AS m JOIN session_index AS s ON s.session_key = m.session_key
         WHERE m.id >= ? AND m.id < ? AND m.timestamp < ? AND s.agent_id = ? AND s.kind IN (${kinds})
         ORDER BY m.id LIMIT ?)
       RETURNING id`,
    )
    .bind(range.from, range.to, range.before, range.agentId, ...range.kinds, range.limit);
}

/** Where the agent's next walk under this policy (`<retentionMs>:<kinds>`) starts. */
async function saveCursor(db: D1Database, agentId: string, policy: string, nextId: number): Promise<void> {
  await db
    .prepare(
      `INSERT INTO search_retention_walk (agent_id, policy, next_id) VALUES (?, ?, ?)
       ON CONFLICT (agent_id, policy) DO UPDATE SET next_id = excluded.next_id`,
    )
    .bind(agentId, policy, nextId)
    .run();
}
