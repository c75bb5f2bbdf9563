import type { RunUsage } from "../runtimes/types";
import type { CollectorResult } from "./api";
import { addDelivery } from "./delivery-store";
import type { SpawnInfo } from "./record";
import { completionKey } from "./run-progress";
import { RESTARTED_BY_STEER, type RunRow } from "./run-store";

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

const statusOf = { ok: "done", error: "failed", timeout: "timeout", killed: "killed" } as const;

/**
 * Whether a collector's run end reports. Every end does, so that its slot in the group is freed (a run
 * killed with its ancestor too), except a run a steer replaced (the new run reports) and one that
 * yielded (it reports when it ends for good).
 */
export function collectorReports(ending: Ending): boolean {
  if (ending.status === "ok") return ending.announce !== false;
  return ending.error !== RESTARTED_BY_STEER;
}

/**
 * The result the run end owes the requester, in the run end's transaction: the raw final text, not the
 * announce's fallbacks. `structured` and `schemaError` are read from the ending when present (a child
 * with an outputSchema records them through structured_output).
 */
export function addCollectorResult(
  sql: SqlStorage,
  spawn: SpawnInfo,
  run: RunRow,
  ending: Ending,
  now: number,
): true {
  const result: CollectorResult = {
    runId: run.runId,
    status: statusOf[ending.status],
    result: ending.reply ?? "",
    ...(ending.structured !== undefined ? { structured: ending.structured } : {}),
    ...(ending.error !== undefined ? { error: ending.error } : {}),
    ...(ending.schemaError !== undefined ? { schemaError: ending.schemaError } : {}),
    ...(ending.usage
      ? { usage: { inputTokens: ending.usage.input, outputTokens: ending.usage.output } }
      : {}),
  };
  const cleanup = spawn.cleanup === "delete" && spawn.mode === "run";
  addDelivery(
    sql,
    "completion",
    { runId: run.runId, target: spawn.requesterKey },
    {
      kind: "collector_result",
      key: completionKey(run.runId),
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
