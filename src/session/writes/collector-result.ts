import type { RunUsage } from "../../runtimes/types";
import type { CollectorResult } from "../api";
import type { SpawnInfo } from "../record/record";
import { addDelivery, hasDeliveryRecord } from "../store/delivery-store";
import { completionKey } from "../store/outbox-store";
import { RESTARTED_BY_STEER, STATUS_OF_ENDING } from "../store/run-store";

// A collector child (SPEC §15) announces nothing: its run end hands the requester a record, through the
// outbox with its delivery record (kind `completion`), never a turn, so the requester runs nothing.

/** What a run end says, as far as a collector's result needs it (run-ending.ts's RunEnding). */
interface Ending {
  status: "ok" | "error" | "timeout" | "killed";
  announce?: boolean;
  reply?: string;
  error?: string;
  usage?: RunUsage;
  structured?: unknown;
  schemaError?: string;
}

/**
 * Whether a collector's run end reports. Every end does, so that its slot in the group is freed (a run
 * killed with its ancestor too), except a run a steer replaced (the new run reports) and one that
 * yielded (it reports when it ends for good).
 */
export function collectorReports(ending: Ending): boolean {
  if (ending.status === "ok") return ending.announce !== false;
  return ending.error !== RESTARTED_BY_STEER;
}

/** The member's run id: the spawn's first run, whatever run of the child ends its task (a steer's too). */
export const memberRunId = (spawn: SpawnInfo, runId: string) => spawn.collect?.runId ?? runId;

/** Whether the child's task has reported already (its one result handoff has a record, delivered or not). */
function hasReported(sql: SqlStorage, runId: string): boolean {
  return hasDeliveryRecord(sql, completionKey(runId));
}

/**
 * The result a collector child owes the requester, in the transaction of the end that owes it (a run's
 * end, or the child's deletion): once per task, under the member's run id, with the raw final text, not
 * the announce's fallbacks. `structured` and `schemaError` are read from the ending when present (a child
 * with an outputSchema records them through structured_output). False when the task reported already.
 */
export function addCollectorResult(
  sql: SqlStorage,
  spawn: SpawnInfo,
  runId: string,
  ending: Ending,
  now: number,
  options: { deleting?: boolean } = {},
): boolean {
  const member = memberRunId(spawn, runId);
  if (hasReported(sql, member)) return false;
  const result: CollectorResult = {
    runId: member,
    status: STATUS_OF_ENDING[ending.status],
    result: ending.reply ?? "",
    ...(ending.structured !== undefined ? { structured: ending.structured } : {}),
    ...(ending.error !== undefined ? { error: ending.error } : {}),
    ...(ending.schemaError !== undefined ? { schemaError: ending.schemaError } : {}),
    ...(ending.usage
      ? { usage: { inputTokens: ending.usage.input, outputTokens: ending.usage.output } }
      : {}),
  };
  // A child being deleted goes anyway: nothing to remove afterwards.
  const cleanup = spawn.cleanup === "delete" && spawn.mode === "run" && !options.deleting;
  addDelivery(
    sql,
    "completion",
    { runId: member, target: spawn.requesterKey },
    {
      kind: "collector_result",
      key: completionKey(member),
      payload: {
        requesterKey: spawn.requesterKey,
        result,
        ...(cleanup ? { afterwards: "remove_session" as const } : {}),
      },
    },
    now,
  );
  return true;
}
