import { collectorSpawners, controlledRuns, indexedRuns } from "../index-db/runs";
import type { ToolContext } from "./types";

/** Why agents_wait cannot answer for a run; `not_owner` says only that, nothing about the run. */
export type WaitError = { runId: string; error: "not_found" | "not_owner" };

/**
 * Where the caller may read each requested collector run: the session that spawned it keeps its result,
 * and only that session or its requesters up the tree may read it (SPEC §15). `asked` are the ids the
 * caller's own store does not hold; for those, the run index names a collector run's spawner (the
 * caller or a descendant may read it). Any other id is no collector run the caller may wait for: one of
 * its tree's ordinary sub-agent runs is `not_found` (`subagents wait` is its tool); outside the tree, an
 * id is `not_owner` when the run index knows it, else `not_found`.
 */
export async function collectorOwners(
  ctx: ToolContext,
  asked: readonly string[],
): Promise<{ spawners: Map<string, string[]>; errors: WaitError[] }> {
  const spawners = new Map<string, string[]>();
  const errors: WaitError[] = [];
  if (asked.length === 0) return { spawners, errors };
  const caller = ctx.requester.sessionKey;
  // A collector run names its spawner in the run index: found even once its child's row is gone.
  const named = await collectorSpawners(ctx.shards, caller, asked);
  for (const [runId, spawner] of named) {
    // The caller's own members are in its own store already: what is left of them was pruned.
    if (spawner === caller) errors.push({ runId, error: "not_found" });
    else spawners.set(spawner, [...(spawners.get(spawner) ?? []), runId]);
  }
  const others = asked.filter((runId) => !named.has(runId));
  const [inTree, known] = await Promise.all([
    controlledRuns(ctx.shards, caller, others),
    indexedRuns(ctx.shards, others),
  ]);
  for (const runId of others)
    errors.push({ runId, error: inTree.has(runId) || !known.has(runId) ? "not_found" : "not_owner" });
  return { spawners, errors };
}
