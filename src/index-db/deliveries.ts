import type { DeliveryKind, DeliveryRecord, DeliveryStatus } from "../session/api";
import { agentShards, everyShard, type IndexDb, type IndexShards, keyShard } from "./shards";

/** A record as the index keeps it: the caller's view plus the agent it belongs to (agent tokens). */
export type IndexedDelivery = DeliveryRecord & { agentId: string };

interface DeliveryIndexRow {
  delivery_id: string;
  session_key: string;
  agent_id: string;
  kind: DeliveryKind;
  run_id: string | null;
  target: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

function deliveryOf(row: DeliveryIndexRow): IndexedDelivery {
  return {
    deliveryId: row.delivery_id,
    kind: row.kind,
    ...(row.run_id !== null ? { runId: row.run_id } : {}),
    sessionKey: row.session_key,
    agentId: row.agent_id,
    target: row.target,
    status: row.status,
    attempts: row.attempts,
    ...(row.next_attempt_at !== null ? { nextAttemptAt: row.next_attempt_at } : {}),
    ...(row.last_error !== null ? { lastError: row.last_error } : {}),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Writes a record's current state; an older state arriving late never overwrites a newer one. */
export function deliveryIndexUpsert(db: IndexDb, delivery: IndexedDelivery): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO delivery_index (delivery_id, session_key, agent_id, kind, run_id, target, status, attempts,
         next_attempt_at, last_error, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
       ON CONFLICT (delivery_id) DO UPDATE SET status = excluded.status, attempts = excluded.attempts,
         next_attempt_at = excluded.next_attempt_at, last_error = excluded.last_error, updated_at = excluded.updated_at
       WHERE excluded.updated_at >= delivery_index.updated_at`,
    )
    .bind(
      delivery.deliveryId,
      delivery.sessionKey,
      delivery.agentId,
      delivery.kind,
      delivery.runId ?? null,
      delivery.target,
      delivery.status,
      delivery.attempts,
      delivery.nextAttemptAt ?? null,
      delivery.lastError ?? null,
      delivery.createdAt,
      delivery.updatedAt,
    );
}

/** Removes a record the session no longer keeps (pruned after 7 days). */
export function deliveryIndexDelete(db: IndexDb, deliveryId: string): D1PreparedStatement {
  return db.prepare("DELETE FROM delivery_index WHERE delivery_id = ?").bind(deliveryId);
}

/** Removes the records of a deleted session (those written before its deletion: the key may live again). */
export async function deleteSessionDeliveries(
  db: IndexDb,
  sessionKey: string,
  deletedAt: number,
): Promise<void> {
  await db
    .prepare("DELETE FROM delivery_index WHERE session_key = ? AND created_at <= ?")
    .bind(sessionKey, deletedAt)
    .run();
}

/** Keyset position of a page: the last row's (createdAt, deliveryId). */
export interface DeliveryCursor {
  createdAt: number;
  deliveryId: string;
}

export interface DeliveryQuery {
  status?: DeliveryStatus;
  sessionKey?: string;
  kind?: DeliveryKind;
  /** Only this agent's sessions (an agent token). */
  agentId?: string;
  cursor?: DeliveryCursor;
  limit: number;
}

/**
 * The shards a deliveries list reads: one session's or one agent's shard(s) when the query names it, else
 * every shard (the operator's list), each read from the same cursor with the same limit + 1 and merged.
 */
function deliveryShards(shards: IndexShards, query: DeliveryQuery): readonly IndexDb[] {
  if (shards.length === 1) return shards;
  if (query.sessionKey) return [keyShard(shards, query.sessionKey)];
  if (query.agentId !== undefined) return agentShards(shards, query.agentId);
  return shards;
}

// The list's order, newest first; delivery ids are unique, so the merge of several shards is exact.
const newestDelivery = (a: DeliveryIndexRow, b: DeliveryIndexRow) =>
  b.created_at - a.created_at || (b.delivery_id < a.delivery_id ? -1 : b.delivery_id > a.delivery_id ? 1 : 0);

/** A page of records, newest first, and the cursor of the next page when there is one. */
export async function listDeliveries(
  shards: IndexShards,
  query: DeliveryQuery,
): Promise<{ deliveries: IndexedDelivery[]; next?: DeliveryCursor }> {
  const where: string[] = [];
  const params: unknown[] = [];
  const filter = (clause: string, value: unknown) => {
    where.push(clause);
    params.push(value);
  };
  if (query.status) filter("status = ?", query.status);
  if (query.sessionKey) filter("session_key = ?", query.sessionKey);
  if (query.kind) filter("kind = ?", query.kind);
  if (query.agentId !== undefined) filter("agent_id = ?", query.agentId);
  if (query.cursor) {
    where.push("(created_at < ? OR (created_at = ? AND delivery_id < ?))");
    params.push(query.cursor.createdAt, query.cursor.createdAt, query.cursor.deliveryId);
  }
  const parts = await everyShard(deliveryShards(shards, query), async (db) => {
    const { results } = await db
      .prepare(
        `SELECT * FROM delivery_index ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""}
         ORDER BY created_at DESC, delivery_id DESC LIMIT ?`,
      )
      .bind(...params, query.limit + 1)
      .all<DeliveryIndexRow>();
    return results;
  });
  const results = parts.length === 1 ? (parts[0] ?? []) : parts.flat().sort(newestDelivery);
  const deliveries = results.slice(0, query.limit).map(deliveryOf);
  const last = deliveries.at(-1);
  return results.length > query.limit && last
    ? { deliveries, next: { createdAt: last.createdAt, deliveryId: last.deliveryId } }
    : { deliveries };
}

/**
 * How many records of other agents' sessions, matching `status` and `kind`, are addressed to one of
 * `agentId`'s sessions (a sub-agent's completion to its requester, a watch notice to its watcher): what
 * that agent's own list leaves out, though it knows of each (it spawned or watches their sessions). Every
 * shard (the producers are any agent's), each by the `delivery_index_target` range of its keys.
 */
export async function countAddressedByOthers(
  shards: IndexShards,
  query: { agentId: string; status?: DeliveryStatus; kind?: DeliveryKind },
): Promise<number> {
  // `agent:<id>:` up to `agent:<id>;` (";" follows ":"): every canonical key of that agent, no other.
  const where = ["target >= ?", "target < ?", "agent_id != ?"];
  const params: unknown[] = [`agent:${query.agentId}:`, `agent:${query.agentId};`, query.agentId];
  if (query.status) {
    where.push("status = ?");
    params.push(query.status);
  }
  if (query.kind) {
    where.push("kind = ?");
    params.push(query.kind);
  }
  const counts = await everyShard(shards, async (db) => {
    const row = await db
      .prepare(`SELECT COUNT(*) AS n FROM delivery_index WHERE ${where.join(" AND ")}`)
      .bind(...params)
      .first<{ n: number }>();
    return row?.n ?? 0;
  });
  return counts.reduce((sum, n) => sum + n, 0);
}

/**
 * One record's session and agent, to route `GET/POST /v1/deliveries/{id}` to its session object. A
 * delivery id names no shard: every one is asked, in parallel.
 */
export async function findDelivery(
  shards: IndexShards,
  deliveryId: string,
): Promise<IndexedDelivery | undefined> {
  const found = await everyShard(shards, (db) =>
    db
      .prepare("SELECT * FROM delivery_index WHERE delivery_id = ?")
      .bind(deliveryId)
      .first<DeliveryIndexRow>(),
  );
  const row = found.find((candidate) => candidate !== null);
  return row ? deliveryOf(row) : undefined;
}
