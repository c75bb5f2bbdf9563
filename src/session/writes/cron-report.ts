import { isCronSlotKey } from "../../cron/run-report";
import type { SessionRecord } from "../record/record";
import { deliveryIdOf } from "../store/delivery-store";
import { addToOutbox } from "../store/outbox-store";
import type { RunEnding, RunRow } from "../store/run-store";

/**
 * Owes the agent's scheduler a cron run's end (call inside the run end's transaction, after its reply
 * post was owed): SPEC §22's `runs` history, a webhook's body and the failure backoff read it. Delivered
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
  const deliveryId = run.replyTo ? deliveryIdOf(sql, `post:${run.runId}:reply`) : undefined;
  const deliveryStatus =
    !run.replyTo || ending.status !== "ok" ? "none" : deliveryId ? "pending" : "not_required";
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
