import { sessionApi } from "./client";
import { collectorStartOf, markCollectorStarted } from "./collector-store";
import { byOutboxKey, markFailed } from "./ledger";
import type { OutboxEntry } from "./outbox-store";
import { readRecord } from "./record";

type CollectorEntry = Extract<OutboxEntry, { kind: "collector_start" | "collector_result" }>;

/**
 * Delivers a collector entry of the outbox (SPEC §15); throws to have it retried. `collector_start`
 * (requester side) creates a member's child with its run once it holds a running slot: a member killed
 * meanwhile, or a requester being deleted, starts nothing. `collector_result` (child side) hands the
 * result to the requester, which deduplicates it by runId; a requester gone for good fails the record.
 */
export async function deliverCollectorEntry(
  env: Env,
  sql: SqlStorage,
  entry: CollectorEntry,
): Promise<"delivered" | "settled" | "remove_session"> {
  if (entry.kind === "collector_start") {
    const { runId } = entry.payload;
    const start = collectorStartOf(sql, runId);
    if (!start || readRecord(sql)?.deletedAt !== undefined) return "delivered";
    // Repeatable: an existing child only gets its turn added again, a no-op for the same runId.
    const created = await sessionApi(env.SESSION, start.init.sessionKey).createWithTurn(
      start.init,
      start.turn,
      start.fork,
    );
    if (!created.ok) throw new Error(`collector ${runId} not started: ${created.message}`);
    markCollectorStarted(sql, runId);
    return "delivered";
  }
  const { requesterKey, result, afterwards } = entry.payload;
  const taken = await sessionApi(env.SESSION, requesterKey).collectorResult(result);
  if (!taken.ok) {
    markFailed(sql, byOutboxKey(entry.key), `requester ${requesterKey} is gone`);
    return "settled";
  }
  return afterwards ?? "delivered";
}
