import { sessionApi } from "../client";
import { readRecord } from "../record/record";
import { collectorEnded, failCollector, oweChild } from "../store/collector-store";
import { byOutboxKey, markFailed } from "../store/delivery-ledger";
import type { OutboxEntry } from "../store/outbox-store";

type CollectorEntry = Extract<OutboxEntry, { kind: "collector_release" | "collector_result" }>;

/**
 * Delivers a collector entry of the outbox (SPEC §15); throws to have it retried.
 * `collector_release` (requester side) releases a member's held run once it has a running slot, or
 * kills it (a member cancelled, or a requester deleted, never starts); a child not there yet (its spawn
 * is still creating it) is tried again until the deadline, then the member ends failed.
 * `collector_result` (child side) hands the result to the requester, which deduplicates it by runId; a
 * requester gone for good fails the record.
 */
export async function deliverCollectorEntry(
  env: Env,
  sql: SqlStorage,
  entry: CollectorEntry,
  wake: (runId: string) => void,
): Promise<"delivered" | "settled" | "remove_session"> {
  if (entry.kind === "collector_release") {
    const { runId, childKey, deadlineAt } = entry.payload;
    const kill = entry.payload.kill || readRecord(sql)?.deletedAt !== undefined;
    // A member that ended meanwhile (its child deleted, say) has nothing left to release.
    if (!kill && collectorEnded(sql, runId)) return "delivered";
    const child = sessionApi(env.SESSION, childKey);
    let failure: string;
    try {
      const done = kill ? await child.kill() : await child.releaseRun(runId);
      if (done.ok) return "delivered";
      failure = `collector ${runId}: child ${childKey} not reached`;
    } catch (cause) {
      // An RPC that throws counts against the same deadline as an answer that is not ok.
      failure = `collector ${runId}: child ${childKey} not reached: ${cause instanceof Error ? cause.message : String(cause)}`;
    }
    if (Date.now() < deadlineAt) throw new Error(failure);
    if (kill) return "settled";
    // The member ends failed, freeing its slot (parked agents_wait calls see it); a child that appears
    // after all is owed its kill, under the same key, so its run never starts without a slot.
    if (failCollector(sql, runId, "collector run could not be started", Date.now())) wake(runId);
    oweChild(sql, { run_id: runId, child_key: childKey }, Date.now(), true);
    return "settled";
  }
  const { requesterKey, result, afterwards } = entry.payload;
  const taken = await sessionApi(env.SESSION, requesterKey).collectorResult(result);
  if (!taken.ok) {
    markFailed(sql, byOutboxKey(entry.key), `requester ${requesterKey} is gone`);
    return "settled";
  }
  return afterwards ?? "delivered";
}
