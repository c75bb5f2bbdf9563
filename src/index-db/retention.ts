// SPEC §23 maintenance: the D1 side of the storage report and of retention, one function per query.
// Every delete is a bounded batch (`LIMIT`), oldest first through an index of migrations/0014, so a pass never
// holds a long write; what a batch leaves is taken by the next one. Search rows: search-retention.ts.

/** Per session kind, the `updated_at` before which a session is idle enough to archive / delete (null: never). */
export type KindCutoffs = Record<string, { archiveBefore: number | null; deleteBefore: number | null }>;

export interface AgentStorage {
  sessions: number;
  messages: number;
  objectBytes: number;
  wouldArchive: number;
  wouldDelete: number;
}

const KINDS = ["main", "group", "cron", "hook", "node", "other"] as const;

/** `CASE kind WHEN 'main' THEN ? … END`, and its bindings, for one cutoff of each kind. */
function cutoffCase(
  cutoffs: KindCutoffs,
  field: "archiveBefore" | "deleteBefore",
): [string, (number | null)[]] {
  const whens = KINDS.map((kind) => `WHEN '${kind}' THEN ?`).join(" ");
  return [`CASE kind ${whens} END`, KINDS.map((kind) => cutoffs[kind]?.[field] ?? null)];
}

/**
 * One agent's sessions in one shard: counts, messages and object bytes (as each session last reported
 * them in its row), and how many the policy would archive or delete now. A session in a run is neither;
 * one due for deletion is not counted as due for archiving too.
 */
export function agentStorage(db: D1Database, agentId: string, cutoffs: KindCutoffs): D1PreparedStatement {
  const [archiveCase, archiveBinds] = cutoffCase(cutoffs, "archiveBefore");
  const [deleteCase, deleteBinds] = cutoffCase(cutoffs, "deleteBefore");
  return db
    .prepare(
      `SELECT COUNT(*) AS sessions, COALESCE(SUM(message_count), 0) AS messages,
              COALESCE(SUM(object_bytes), 0) AS object_bytes,
              COALESCE(SUM(status IS NOT 'running' AND updated_at < ${deleteCase}), 0) AS would_delete,
              COALESCE(SUM(status IS NOT 'running' AND list_state = 0 AND updated_at < ${archiveCase}
                           AND NOT COALESCE(updated_at < ${deleteCase}, 0)), 0) AS would_archive
       FROM session_index WHERE agent_id = ?`,
    )
    .bind(...deleteBinds, ...archiveBinds, ...deleteBinds, agentId);
}

type StorageRow = {
  sessions: number;
  messages: number;
  object_bytes: number;
  would_delete: number;
  would_archive: number;
};

/** The answer of `agentStorage`. */
export function storageOf(result: D1Result | undefined): AgentStorage {
  const row = result?.results[0] as StorageRow | undefined;
  return {
    sessions: row?.sessions ?? 0,
    messages: row?.messages ?? 0,
    objectBytes: row?.object_bytes ?? 0,
    wouldArchive: row?.would_archive ?? 0,
    wouldDelete: row?.would_delete ?? 0,
  };
}

/** An agent's largest sessions in one shard, by their object's reported size. */
export function largestSessions(db: D1Database, agentId: string, limit: number): D1PreparedStatement {
  return db
    .prepare(
      `SELECT session_key, object_bytes FROM session_index INDEXED BY session_index_agent_bytes
       WHERE agent_id = ? ORDER BY object_bytes DESC LIMIT ?`,
    )
    .bind(agentId, limit);
}

/** The answer of `largestSessions`. */
export function largestOf(result: D1Result | undefined): { sessionKey: string; bytes: number }[] {
  const rows = (result?.results ?? []) as { session_key: string; object_bytes: number }[];
  return rows.map((row) => ({ sessionKey: row.session_key, bytes: row.object_bytes }));
}

/** The shard's size in bytes, as D1 itself reports it after a statement (`meta.size_after`). */
export async function shardBytes(db: D1Database): Promise<number> {
  const result = await db.prepare("SELECT 1").run();
  return result.meta.size_after ?? 0;
}

/**
 * Idle sessions of one agent the pass may retire (`archive`: listed ones past their kind's archive
 * cutoff; `delete`: any past its delete cutoff), oldest first; their object re-checks before it acts.
 */
export async function idleSessions(
  db: D1Database,
  request: { agentId: string; action: "archive" | "delete"; cutoffs: KindCutoffs; limit: number },
): Promise<{ sessionKey: string; sessionId: string; kind: string }[]> {
  const field = request.action === "archive" ? "archiveBefore" : "deleteBefore";
  const latest = Math.max(
    ...Object.values(request.cutoffs).map((cutoff) => cutoff[field] ?? Number.NEGATIVE_INFINITY),
  );
  if (!Number.isFinite(latest)) return [];
  const [cutoffSql, binds] = cutoffCase(request.cutoffs, field);
  // One walk of the agent's list index per list state, oldest first (`recency` orders as `updated_at`),
  // merged: the latest cutoff bounds each range; each kind's own cutoff then filters within it.
  const states = request.action === "delete" ? [0, 1] : [0];
  const branch = `SELECT session_key, session_id, kind, recency FROM session_index INDEXED BY session_index_agent
    WHERE agent_id = ? AND list_state = ? AND recency < CAST(? AS INTEGER) * 1048576
      AND updated_at < ${cutoffSql} AND status IS NOT 'running'`;
  const { results } = await db
    .prepare(`${states.map(() => branch).join(" UNION ALL ")} ORDER BY recency LIMIT ?`)
    .bind(...states.flatMap((state) => [request.agentId, state, latest, ...binds]), request.limit)
    .all<{ session_key: string; session_id: string; kind: string }>();
  return results.map((row) => ({ sessionKey: row.session_key, sessionId: row.session_id, kind: row.kind }));
}

/** Deletes up to `limit` run index rows of one agent older than `before`. */
export function pruneRunIndex(
  db: D1Database,
  agentId: string,
  before: number,
  limit: number,
): D1PreparedStatement {
  return db
    .prepare(
      `DELETE FROM run_index WHERE run_id IN (
         SELECT run_id FROM run_index INDEXED BY run_index_created
         WHERE created_at < ? AND session_key >= ? AND session_key < ? ORDER BY created_at LIMIT ?)`,
    )
    .bind(before, `agent:${agentId}:`, `agent:${agentId};`, limit);
}

/** Deletes up to `limit` of an agent's grants that expired before `before` (revoked ones expire too). */
export async function pruneGrants(
  db: D1Database,
  agentId: string,
  before: number,
  limit: number,
): Promise<number> {
  const result = await db
    .prepare(
      `DELETE FROM grants WHERE grant_id IN (
         SELECT grant_id FROM grants INDEXED BY grants_expiry WHERE expires_at < ? AND agent_id = ?
         ORDER BY expires_at LIMIT ?)`,
    )
    .bind(before, agentId, limit)
    .run();
  return result.meta.changes;
}

/** Merges the search index's FTS segments, so text of deleted rows leaves them (after large deletes). */
export async function optimizeSearch(db: D1Database): Promise<void> {
  await db.prepare("INSERT INTO search_fts(search_fts) VALUES ('optimize')").run();
}
