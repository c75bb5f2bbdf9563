import { loadConfig } from "../config/load";
import { isSubagentRest } from "../keys/rest";
import type { VisibleScope } from "../policy/visibility";

/**
 * The D1 databases that hold the session index, in shard order: `DB` (shard 0, also the home of the
 * global tables: grants) then `DB_1`, `DB_2`, … as bound (README "Scaling"). One database writes about
 * 10³ times a second and holds 10 GB; every session's index rows (its session row, run index, delivery
 * records, search rows) live in one shard, its agent's or, for the agents `index.routeByKey` names, its
 * key's (`keyShard`), so the write rate and the size grow with the shards. `keyRouted` is that list.
 */
/** The agents whose sessions are routed by their key (`index.routeByKey`): every one ("*"), or these. */
export type KeyRouted = "*" | readonly string[];

/** Shards of one kind of database handle, in shard order, with the routing they follow. */
export type ShardsOf<Db> = readonly [Db, ...Db[]] & { readonly keyRouted: KeyRouted };

/** What every index query is given: the shards as D1 bindings or as a request's D1 sessions. */
export type IndexShards = ShardsOf<IndexDb>;

/** The bound databases themselves (what a session object, the queue and the cron passes read and write). */
export type BoundShards = ShardsOf<D1Database>;

/**
 * What a query needs of a shard: its D1 binding, or a D1 session over it (a Worker request's, served by
 * the nearest replica: replicas.ts). A session has no `exec`, `dump` or `withSession`.
 */
export type IndexDb = Pick<D1Database, "prepare" | "batch">;

/** Where a Worker request's env carries its shards opened as D1 sessions (replicas.ts). */
export const REQUEST_SHARDS = Symbol("request shards");

/** The bindings the shards are read from (the Worker's Env, or a part of it). */
export type IndexBindings = Env & { readonly [REQUEST_SHARDS]?: IndexShards };

/** The shards a Worker request reads and writes: its D1 sessions (replicas.ts), else the bound databases. */
export function readShards(env: IndexBindings): IndexShards {
  return env[REQUEST_SHARDS] ?? indexShards(env);
}

/**
 * The bound shards: `DB`, then `DB_1`, `DB_2`, … up to the first number not bound (a gap ends them, so
 * the count, which routing depends on, is exactly what the operator numbered), with the configuration's
 * `index.routeByKey` (none under an invalid configuration, which the Worker refuses anyway).
 */
export function indexShards(env: Env): BoundShards {
  const more: D1Database[] = [];
  for (let n = 1; ; n++) {
    const shard = env[`DB_${n}`];
    if (!shard) break;
    more.push(shard);
  }
  const loaded = loadConfig(env);
  const shards: readonly [D1Database, ...D1Database[]] = [env.DB, ...more];
  return Object.assign(shards, { keyRouted: loaded.ok ? loaded.config.index.routeByKey : [] });
}

/**
 * The routing function: FNV-1a (32-bit) of a name, modulo the count. Stable across deploys and
 * isolates; a change of the count re-homes names (README "Scaling" says what the operator does then).
 */
export function shardNumber(name: string, count: number): number {
  if (count <= 1) return 0;
  let hash = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    hash ^= name.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % count;
}

/** Whether an agent's sessions are routed by their key (`index.routeByKey`), so spread over every shard. */
export function routedByKey(shards: ShardsOf<unknown>, agentId: string): boolean {
  return shards.length > 1 && (shards.keyRouted === "*" || shards.keyRouted.includes(agentId));
}

/**
 * The agent of a canonical key (`agent:<agentId>:<rest>`); the index row's agent_id is the same, so a
 * key alone routes. Anything else (never stored) goes to the empty agent's shard.
 */
export function agentOfKey(sessionKey: string): string {
  const match = /^agent:([^:]*):/.exec(sessionKey);
  return match?.[1] ?? "";
}

/**
 * The routing: the shard number of a session's index rows, the hash of its agent id or, for an agent
 * routed by key, of its key. A routed agent's sub-agents (`agent:<id>:subagent:…`) stay in its agent's
 * shard: there the `maxConcurrent` count and claim over them stay one statement (`claimSubagentSlot`),
 * and that cap bounds their traffic anyway.
 */
function shardOfKey(shards: ShardsOf<unknown>, sessionKey: string): number {
  const agentId = agentOfKey(sessionKey);
  const byKey = routedByKey(shards, agentId) && !isSubagentRest(sessionKey.slice(agentId.length + 7));
  return shardNumber(byKey ? sessionKey : agentId, shards.length);
}

/** The shard that holds this session's index rows. */
export function keyShard<Db extends IndexDb>(shards: ShardsOf<Db>, sessionKey: string): Db {
  return shards[shardOfKey(shards, sessionKey)] ?? shards[0];
}

/** The shards that may hold an agent's sessions: its own, or every one when it is routed by key. */
export function agentShards<Db extends IndexDb>(shards: ShardsOf<Db>, agentId: string): Db[] {
  if (routedByKey(shards, agentId)) return [...shards];
  return [shards[shardNumber(agentId, shards.length)] ?? shards[0]];
}

/**
 * A new run id for a run of `sessionKey` whose own routing hash lands in that session's shard, so that
 * `findRunSession` finds it by reading that shard alone: random UUIDs drawn until one does (as many draws
 * as there are shards, on average; the first with one shard). Ids made otherwise (derived from an
 * idempotency key, or older) still route by a read of every shard.
 */
export function runIdIn(shards: ShardsOf<unknown>, sessionKey: string): string {
  const home = shardOfKey(shards, sessionKey);
  for (;;) {
    const runId = crypto.randomUUID();
    if (shardNumber(runId, shards.length) === home) return runId;
  }
}

/**
 * The fan-out rule: the shards a read must ask. A read that names one agent (an agentId filter, or an
 * agent token's `self`/`tree` scope, whose children of other agents the list hides) or a set of agents
 * (an `agents` scope) asks their shards only (every shard for an agent routed by key); anything else (the
 * operator, visibility `all`) asks every shard, in parallel, and merges. With one shard this is always
 * that shard: no fan-out path runs.
 */
export function scopeShards(shards: IndexShards, scope: VisibleScope, agentId?: string): IndexDb[] {
  if (shards.length === 1) return [shards[0]];
  if (agentId !== undefined) return agentShards(shards, agentId);
  if (scope.type === "all") return [...shards];
  if (scope.type === "agents") return [...new Set(scope.agentIds.flatMap((id) => agentShards(shards, id)))];
  return agentShards(shards, scope.agentId);
}

/** Each shard's part of a key list (several keys, one read per shard that holds any of them). */
export function keysByShard(shards: IndexShards, sessionKeys: readonly string[]): Map<IndexDb, string[]> {
  const parts = new Map<IndexDb, string[]>();
  for (const key of sessionKeys) {
    const shard = keyShard(shards, key);
    parts.set(shard, [...(parts.get(shard) ?? []), key]);
  }
  return parts;
}

/** The same read on every shard in parallel (a fan-out), results in shard order. */
export function everyShard<T, Db extends IndexDb = IndexDb>(
  shards: readonly Db[],
  read: (db: Db) => Promise<T>,
): Promise<T[]> {
  return Promise.all(shards.map(read));
}

/**
 * A merged read's order, newest activity first: `recency` (migrations/0003) as its two exact halves,
 * updated_at and its slot (the product passes 2^53), read with RECENCY_COLUMNS. Slots repeat across
 * shards; rows equal on both come out in shard order, which a list cursor records (list.ts).
 */
export const RECENCY_COLUMNS = "updated_at, recency % 1048576 AS recency_tiebreak";
export interface RecencyRow {
  updated_at: unknown;
  recency_tiebreak: unknown;
}
export const newestFirst = (a: RecencyRow, b: RecencyRow): number =>
  Number(b.updated_at) - Number(a.updated_at) || Number(b.recency_tiebreak) - Number(a.recency_tiebreak);
