import { env } from "cloudflare:workers";

/** An index row written straight into D1, for query-cost tests that need many sessions quickly. */
export interface SeedRow {
  sessionKey: string;
  agentId: string;
  kind?: string;
  updatedAt: number;
  spawnedBy?: string;
  label?: string;
  listState?: number;
}

/** Inserts index rows in one batch (what session objects would write, minus the optional columns). */
export async function seedIndexRows(rows: SeedRow[]): Promise<void> {
  const insert = env.DB.prepare(
    `INSERT INTO session_index (session_key, session_id, agent_id, kind, channel, created_at, updated_at,
       spawned_by, label, list_state, search_text, version)
     VALUES (?, ?, ?, ?, 'internal', ?, ?, ?, ?, ?, ?, 1)`,
  );
  await env.DB.batch(
    rows.map((row) =>
      insert.bind(
        row.sessionKey,
        crypto.randomUUID(),
        row.agentId,
        row.kind ?? "other",
        row.updatedAt,
        row.updatedAt,
        row.spawnedBy ?? null,
        row.label ?? null,
        row.listState ?? 0,
        row.sessionKey.toLowerCase(),
      ),
    ),
  );
}
