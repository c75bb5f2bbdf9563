import { isCronSlotKey } from "../../cron/run-report";
import type { SessionRecord } from "../record/record";
import { deliveryIdOf } from "../store/delivery-store";
import { addToOutbox } from "../store/outbox-store";
import type { RunEnding, RunRow } from "../store/run-store";

/**
 * The run's delivery as `runs` shows it: a webhook reports every ending (its body carries the status),
 * so it is `pending` in the ledger once owed; an announce is owed for a success only, and may have been
 * `not_required` (nothing to say).
 */
function deliveryOf(
  sql: SqlStorage,
  run: RunRow,
  ending: RunEnding,
): { deliveryStatus: string; deliveryId?: string } {
  if (run.webhook) {
    const deliveryId = deliveryIdOf(sql, `webhook:run:${run.runId}`);
    return deliveryId ? { deliveryStatus: "pending", deliveryId } : { deliveryStatus: "none" };
  }
  if (!run.replyTo || ending.status !== "ok") return { deliveryStatus: "none" };
  const deliveryId = deliveryIdOf(sql, `post:${run.runId}:reply`);
  return deliveryId ? { deliveryStatus: "pending", deliveryId } : { deliveryStatus: "not_required" };
}

/**
 * Owes the agent's scheduler a cron run's end (call inside the run end's transaction, after its reply
 * post or its webhook was owed): SPEC §22's `runs` history, a webhook's body and the failure backoff read it. Delivered
 * until acknowledged, as `agent_usage` is; the scheduler takes a runId's end once.
 */
export function addCronRunReport(
  sql: SqlStorage,
  record: SessionRecord,
  run: RunRow,
  ending: RunEnding,
  now: number,
): void {
  if (!isCronSlotKey(run.dedupeKey) || ending.announce === false) return;
  const { deliveryStatus, deliveryId } = deliveryOf(sql, run, ending);
  addToOutbox(sql, "cron_run_end", `cron:${run.runId}`, {
    agentId: record.agentId,
    runId: run.runId,
    sessionKey: record.sessionKey,
    status: ending.status,
    ...(run.startedAt !== undefined ? { startedAt: run.startedAt } : {}),
    endedAt: now,
    ...(ending.reply !== undefined ? { reply: ending.reply } : {}),
    ...(ending.error !== undefined ? { error: ending.error } : {}),
    deliveryStatus,
    ...(deliveryId ? { deliveryId } : {}),
  });
}
