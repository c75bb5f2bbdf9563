import { findSessionsByKeys } from "../index-db/lookup";
import { collectorSpawners, controlledRuns, indexedRuns } from "../index-db/runs";
import type { ToolContext } from "./types";

/** Why agents_wait cannot answer for a run; `not_owner` says only that, nothing about the run. */
export type WaitError = { runId: string; error: "not_found" | "not_owner" };

// D1 binds at most 100 parameters per statement.
const PER_READ = 90;

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += PER_READ) out.push(items.slice(start, start + PER_READ));
  return out;
}

/**
 * Where the caller may read each requested collector run: the session that spawned it keeps its result,
 * and only that session or its requesters up the tree may read it (SPEC §15). `asked` are the ids the
 * caller's own store does not hold; for those, the run index names a collector run's spawner (the
 * caller or a descendant may read it), else the spawn tree finds the session that spawned the run. Ids the caller's tree holds but no spawner keeps as a collector (an
 * ordinary sub-agent run) are `not_found` once the spawner is asked; ids outside the tree are
 * `not_owner` when the run index knows them, else `not_found`.
 */
export async function collectorOwners(
  ctx: ToolContext,
  asked: readonly string[],
): Promise<{ spawners: Map<string, string[]>; errors: WaitError[] }> {
  const spawners = new Map<string, string[]>();
  const errors: WaitError[] = [];
  let unknown = asked;
  if (unknown.length === 0) return { spawners, errors };
  const caller = ctx.requester.sessionKey;
  // A collector run names its spawner in the run index: found even once its child's row is gone.
  const named = await collectorSpawners(ctx.db, caller, unknown);
  for (const [runId, spawner] of named) {
    // The caller's own members are in its own store already: what is left of them was pruned.
    if (spawner === caller) errors.push({ runId, error: "not_found" });
    else spawners.set(spawner, [...(spawners.get(spawner) ?? []), runId]);
  }
  unknown = unknown.filter((runId) => !named.has(runId));
  const controlled = new Map<string, string>();
  for (const part of chunks(unknown))
    for (const [runId, key] of await controlledRuns(ctx.db, caller, part)) controlled.set(runId, key);
  const refs = new Map<string, { spawnedBy?: string }>();
  for (const part of chunks([...new Set(controlled.values())]))
    for (const [key, ref] of await findSessionsByKeys(ctx.db, part)) refs.set(key, ref);
  for (const [runId, childKey] of controlled) {
    const spawner = refs.get(childKey)?.spawnedBy;
    // The caller's own children are in its own store already: what is left of them is no collector.
    if (!spawner || spawner === caller) errors.push({ runId, error: "not_found" });
    else spawners.set(spawner, [...(spawners.get(spawner) ?? []), runId]);
  }
  const outside = unknown.filter((runId) => !controlled.has(runId));
  const known = await indexedRuns(ctx.db, outside);
  for (const runId of outside) errors.push({ runId, error: known.has(runId) ? "not_owner" : "not_found" });
  return { spawners, errors };
}
