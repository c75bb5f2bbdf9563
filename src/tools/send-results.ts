import { isNonDeliverableReply } from "../messaging/inter-session";
import type { RunRecord } from "../session/api";

/** Whether an announce step will follow the send (SPEC §14 `delivery`). */
export type SendDelivery = { status: "pending" | "skipped"; mode: "announce" };

export const deliveryOf = (skipped: boolean): SendDelivery => ({
  status: skipped ? "skipped" : "pending",
  mode: "announce",
});

/** How the target took the message: a new turn in its queue, or steered into its active run. */
export type TargetDisposition = "queued" | "steered";

export const NO_REPLY_MESSAGE = "No visible reply. Continue or retry if needed.";

export const NO_ACTIVE_RUN_ERROR =
  "Target has no active run that accepts steering. Use mode=followup to start a new turn.";

/**
 * The result of a send that waited (SPEC §5.3, §14): the run's new reply; `no_reply` when it ended
 * without visible text (terminal: nothing follows); or, the message being in the target already,
 * `timeout` (with where the run is) or `error`, both marked `sentBeforeError`.
 */
export function waitOutcome(
  run: RunRecord,
  sessionKey: string,
  timeoutSeconds: number,
  skipAnnounce: boolean,
) {
  const { runId, status, reply, error } = run;
  if (status === "ok" && isNonDeliverableReply(reply)) {
    return {
      runId,
      status: "no_reply",
      message: NO_REPLY_MESSAGE,
      sessionKey,
      targetDisposition: "queued",
      delivery: deliveryOf(true),
    };
  }
  if (status === "ok") {
    return {
      runId,
      status: "ok",
      reply,
      sessionKey,
      targetDisposition: "queued",
      delivery: deliveryOf(skipAnnounce),
    };
  }
  if (status === "queued" || status === "running") {
    return {
      runId,
      status: "timeout",
      error: `No reply within ${timeoutSeconds}s; the run continues. Wait again with POST /v1/runs/${runId}/wait, or read sessions_history later.`,
      sessionKey,
      sentBeforeError: true,
      runStatus: status,
    };
  }
  return {
    runId,
    status: status === "timeout" ? "timeout" : "error",
    error: error ?? `run ${status}`,
    sessionKey,
    sentBeforeError: true,
  };
}
