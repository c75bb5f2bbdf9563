import { maintenancePolicy } from "../config/agents";
import { loadConfig } from "../config/load";
import type { MaintenancePolicy } from "../config/maintenance";
import type { SwitchboardConfig } from "../config/schema";
import {
  type AgentStorage,
  agentStorage,
  idleSessions,
  type KindCutoffs,
  largestOf,
  largestSessions,
  optimizeSearch,
  pruneGrants,
  pruneRunIndex,
  shardBytes,
  storageOf,
} from "../index-db/retention";
import { pruneSearchRows, type SearchRetention, WALK_RANGES } from "../index-db/search-retention";
import { indexShards } from "../index-db/shards";
import type { SessionKind } from "../keys/types";
import { sessionApi } from "../session/client";

/** `dry-run` reports; `enforce` reports and applies one bounded batch of the policy (SPEC §23). */
export type MaintenanceMode = "dry-run" | "enforce";

const KINDS: readonly SessionKind[] = ["main", "group", "cron", "hook", "node", "other"];
/** Sessions archived or deleted per agent per call: each is one object call, so a call stays short. */
export const RETIRE_BATCH = 20;
/** D1 rows deleted per table per agent and shard per call. */
export const ROW_BATCH = 500;
/** After a pass deleted this many search rows from a shard, its FTS segments are merged. */
const OPTIMIZE_AFTER_ROWS = 500;
/** Expired (and revoked) grants stay listed this long after `expiresAt`. */
export const GRANT_KEPT_MS = 7 * 86_400_000;
const LARGEST = 5;

/**
 * D1 round trips one `enforce` call makes at most over `shards` index shards, for a caller that makes
 * several in one invocation (D1 takes 1,000 queries per Worker invocation). Per shard: the idle sessions
 * to delete and to archive (2), the run index rows (1), the search walk's ends (1), its ranges
 * (WALK_RANGES) and a cursor saved per retention (one per kind at most), the FTS merge (1) and the
 * report's batch (1); once: the grants (1).
 */
export function d1CallsPerEnforce(shards: number): number {
  return shards * (2 + 1 + 1 + WALK_RANGES + KINDS.length + 1 + 1) + 1;
}

export interface Enforced {
  archived: number;
  deleted: number;
  /** Sessions left alone though idle in the index: busy again, or a run in flight (their object said). */
  skipped: number;
  searchRows: number;
  runIndexRows: number;
  grants: number;
}

export interface AgentMaintenance extends AgentStorage {
  agentId: string;
  largest: { sessionKey: string; bytes: number }[];
  /** `enforce` only: what this call did, and whether anything due is left for another call. */
  enforced?: Enforced;
  done?: boolean;
}

/**
 * One agent's maintenance (SPEC §23): its storage over every shard (what each session last reported in
 * its index row), and with `enforce` one bounded, resumable batch of its policy — idle sessions deleted
 * (`pruneAfter`) or archived (`archiveAfter`) by their own object, which refuses one in a run or busy
 * again; search rows past `searchRetention`, run index rows past `runRetention`, expired grants. Kinds
 * whose policy is `mode: "warn"` are reported and never changed. Run it again until `done`.
 */
export async function runMaintenance(
  env: Env,
  agentId: string,
  mode: MaintenanceMode,
  options: { config?: SwitchboardConfig; now?: number } = {},
): Promise<AgentMaintenance> {
  const config = options.config ?? configOf(env);
  const now = options.now ?? Date.now();
  const policies = new Map(KINDS.map((kind) => [kind, maintenancePolicy(config, agentId, kind)]));
  const cutoffs: KindCutoffs = {};
  for (const [kind, policy] of policies)
    cutoffs[kind] = {
      archiveBefore: policy.archiveAfterMs === undefined ? null : now - policy.archiveAfterMs,
      deleteBefore: policy.pruneAfterMs === undefined ? null : now - policy.pruneAfterMs,
    };
  const shards = indexShards(env);
  const enforced =
    mode === "enforce" ? await enforce(env, shards, agentId, policies, cutoffs, now) : undefined;
  // The report, after what this call enforced: one round trip per shard (its two reads in one batch).
  const perShard = await Promise.all(
    shards.map((db) => db.batch([agentStorage(db, agentId, cutoffs), largestSessions(db, agentId, LARGEST)])),
  );
  const storage = perShard.map(([counts]) => storageOf(counts));
  const largest = perShard
    .flatMap(([, rows]) => largestOf(rows))
    .filter((session) => session.bytes > 0)
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, LARGEST);
  const sum = (field: keyof AgentStorage) => storage.reduce((total, shard) => total + shard[field], 0);
  return {
    agentId,
    sessions: sum("sessions"),
    messages: sum("messages"),
    objectBytes: sum("objectBytes"),
    wouldArchive: sum("wouldArchive"),
    wouldDelete: sum("wouldDelete"),
    largest,
    ...(enforced ? { enforced: enforced.counts, done: enforced.done } : {}),
  };
}

/** Only the kinds whose policy enforces: a `warn` kind's cutoffs are dropped (null). */
function enforcedCutoffs(policies: Map<SessionKind, MaintenancePolicy>, cutoffs: KindCutoffs): KindCutoffs {
  const enforced: KindCutoffs = {};
  for (const [kind, policy] of policies)
    enforced[kind] =
      policy.mode === "enforce"
        ? (cutoffs[kind] ?? { archiveBefore: null, deleteBefore: null })
        : { archiveBefore: null, deleteBefore: null };
  return enforced;
}

async function enforce(
  env: Env,
  shards: readonly D1Database[],
  agentId: string,
  policies: Map<SessionKind, MaintenancePolicy>,
  cutoffs: KindCutoffs,
  now: number,
): Promise<{ counts: Enforced; done: boolean }> {
  const counts: Enforced = { archived: 0, deleted: 0, skipped: 0, searchRows: 0, runIndexRows: 0, grants: 0 };
  let done = true;
  const enforcedKinds = enforcedCutoffs(policies, cutoffs);
  // Deletions first (an archive of a session about to be deleted is wasted), each shard's batch at once.
  for (const action of ["delete", "archive"] as const) {
    const found = (
      await Promise.all(
        shards.map((db) =>
          idleSessions(db, { agentId, action, cutoffs: enforcedKinds, limit: RETIRE_BATCH }),
        ),
      )
    )
      .flat()
      .slice(0, RETIRE_BATCH);
    if (found.length === RETIRE_BATCH) done = false;
    const answers = await Promise.all(
      found.map(({ sessionKey, sessionId, kind }) => {
        // The object re-checks idleness against its kind's cutoff, the one the index query applied.
        const cutoff = enforcedKinds[kind];
        const idleBefore = (action === "delete" ? cutoff?.deleteBefore : cutoff?.archiveBefore) ?? 0;
        return sessionApi(env.SESSION, sessionKey).retire({
          action,
          idleBefore,
          expectedSessionId: sessionId,
        });
      }),
    );
    for (const answer of answers) {
      if (answer.ok && answer.value.retired) counts[action === "delete" ? "deleted" : "archived"] += 1;
      else counts.skipped += 1;
    }
  }
  // Search rows past searchRetention, per kind; run index rows carry no kind: kept as long as the
  // longest runRetention of the agent's kinds.
  const retentions = searchRetentions(policies);
  const runBefore = now - Math.max(...[...policies.values()].map((policy) => policy.runRetentionMs));
  await Promise.all(
    shards.map(async (db) => {
      const [runs, search] = await Promise.all([
        pruneRunIndex(db, agentId, runBefore, ROW_BATCH).run(),
        pruneSearchRows(db, { agentId, retentions, now, limit: ROW_BATCH }),
      ]);
      const runRows = runs.meta.changes;
      counts.runIndexRows += runRows;
      counts.searchRows += search.deleted;
      if (runRows === ROW_BATCH || !search.done) done = false;
      if (search.deleted >= OPTIMIZE_AFTER_ROWS) await optimizeSearch(db);
    }),
  );
  const [grantsDb] = shards;
  if (grantsDb) {
    counts.grants = await pruneGrants(grantsDb, agentId, now - GRANT_KEPT_MS, ROW_BATCH);
    if (counts.grants === ROW_BATCH) done = false;
  }
  return { counts, done };
}

/** The enforced kinds with a searchRetention, those of equal retention together. */
function searchRetentions(policies: Map<SessionKind, MaintenancePolicy>): SearchRetention[] {
  const kinds = new Map<number, SessionKind[]>();
  for (const [kind, policy] of policies)
    if (policy.mode === "enforce" && policy.searchRetentionMs !== undefined)
      kinds.set(policy.searchRetentionMs, [...(kinds.get(policy.searchRetentionMs) ?? []), kind]);
  return [...kinds].map(([retentionMs, group]) => ({ retentionMs, kinds: group }));
}

/** The Worker's configuration; a pass never runs under an invalid one (the Worker answers 500 then). */
function configOf(env: Env): SwitchboardConfig {
  const loaded = loadConfig(env);
  if (!loaded.ok) throw new Error(loaded.error);
  return loaded.config;
}

/** Each index shard's size (`DB`, `DB_1`, …), as D1 reports it. */
export async function shardSizes(env: Env): Promise<{ shard: string; bytes: number }[]> {
  return Promise.all(
    indexShards(env).map(async (db, n) => ({
      shard: n === 0 ? "DB" : `DB_${n}`,
      bytes: await shardBytes(db),
    })),
  );
}
