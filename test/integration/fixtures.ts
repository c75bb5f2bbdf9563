import { shardOf } from "../support/shards";

/** An index row written straight into D1, for query-cost tests that need many sessions quickly. */
export interface SeedRow {
  sessionKey: string;
  agentId: string;
  kind?: string;
  updatedAt: number;
  spawnedBy?: string;
  label?: string;
  listState?: number;
  /** Its session id (a random one if not given). */
  sessionId?: string;
  /** The session id of its spawner it is bound to (SPEC §23); none when not given. */
  spawnedById?: string;
}

/**
 * Inserts index rows (what session objects would write, minus the optional columns), each in its key's
 * shard, or all in `db` (a single-shard query-cost test), one batch per shard.
 */
export async function seedIndexRows(rows: SeedRow[], db?: D1Database): Promise<void> {
  const byShard = new Map<D1Database, SeedRow[]>();
  for (const row of rows) {
    const shard = db ?? shardOf(row.sessionKey);
    byShard.set(shard, [...(byShard.get(shard) ?? []), row]);
  }
  for (const [shard, part] of byShard) await seedShard(shard, part);
}

async function seedShard(db: D1Database, rows: SeedRow[]): Promise<void> {
  const insert = db.prepare(
    `INSERT INTO session_index (session_key, session_id, agent_id, kind, channel, created_at, updated_at,
       spawned_by, label, list_state, search_text, version, spawned_by_id)
     VALUES (?, ?, ?, ?, 'internal', ?, ?, ?, ?, ?, ?, 1, ?)`,
  );
  await db.batch(
    rows.map((row) =>
      insert.bind(
        row.sessionKey,
        row.sessionId ?? crypto.randomUUID(),
        row.agentId,
        row.kind ?? "other",
        row.updatedAt,
        row.updatedAt,
        row.spawnedBy ?? null,
        row.label ?? null,
        row.listState ?? 0,
        row.sessionKey.toLowerCase(),
        row.spawnedById ?? null,
      ),
    ),
  );
}
