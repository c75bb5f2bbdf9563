import { listChildren } from "../index-db/children";
import { controlledRuns } from "../index-db/runs";
import { isUnderway, type RunProgress } from "../session/api";
import { isActive } from "../subagents/targets";
import { parkedRead } from "./parked-read";
import { requesterSessionId } from "./requester-session";
import type { ToolContext } from "./types";

export const MAX_WAIT_RUNS = 32;
const DEFAULT_WAIT_SECONDS = 30;
const MAX_WAIT_SECONDS = 60;

export const OUTSIDE_TREE = "Run outside the controlled session tree.";

/**
 * A run's progress from its session object, parked there until it is terminal or `timeoutMs` passes (0:
 * at once). Undefined when the run or its session is gone.
 */
export function progressOf(
  ctx: ToolContext,
  sessionKey: string,
  runId: string,
  timeoutMs: number,
): Promise<RunProgress | undefined> {
  return parkedRead(timeoutMs, async (remainingMs) => {
    const found = await ctx.session(sessionKey).waitForProgress(runId, remainingMs);
    return found.ok ? found.value : undefined;
  });
}

/**
 * Kills a session and, through the index, every descendant still running; returns the runs stopped.
 * Only the root reports its end: a killed descendant's completion would wake its killed parent up again.
 */
export async function killTree(ctx: ToolContext, rootKey: string): Promise<number> {
  let stopped = 0;
  for (const queue = [rootKey]; queue.length > 0; ) {
    const key = queue.shift() as string;
    const killed = await ctx.session(key).kill({ cascade: key !== rootKey });
    if (killed.ok) stopped += killed.value.stopped;
    for (const child of await listChildren(ctx.shards, key))
      if (isActive(child)) queue.push(child.sessionKey);
  }
  return stopped;
}

/**
 * SPEC §15 `subagents wait`: parks server-side (in the runs' session objects) until one reason holds,
 * by precedence: an id outside the caller's tree, a suspended completion delivery, a terminal run, the
 * timeout. Never cancels a run nor touches its completion.
 */
export async function waitForRuns(ctx: ToolContext, runIds: string[], timeoutSeconds: number | undefined) {
  const timeoutMs = Math.min(MAX_WAIT_SECONDS, Math.max(0, timeoutSeconds ?? DEFAULT_WAIT_SECONDS)) * 1000;
  const owned = [
    ...(await controlledRuns(ctx.shards, ctx.requester.sessionKey, runIds, await requesterSessionId(ctx))),
  ];
  const snapshot = async () =>
    new Map(
      await Promise.all(
        owned.map(async ([runId, key]) => [runId, await progressOf(ctx, key, runId, 0)] as const),
      ),
    );
  let found = await snapshot();
  const decided = () =>
    found.size < runIds.length ||
    [...found.values()].some(
      (run) => run === undefined || !isUnderway(run) || run.deliveryStatus === "suspended",
    );
  if (!decided() && timeoutMs > 0) {
    // The first run to finish (or the timeout) ends the wait; then all are read again, together.
    await Promise.race(
      owned.map(([runId, key]) => progressOf(ctx, key, runId, timeoutMs).catch(() => undefined)),
    );
    found = await snapshot();
  }
  const runs = runIds.flatMap((runId) => found.get(runId) ?? []);
  const unavailable = runIds.filter((runId) => !found.get(runId));
  const completed = runs.filter((run) => !isUnderway(run)).map((run) => run.runId);
  const attention = runs.filter((run) => run.deliveryStatus === "suspended").map((run) => run.runId);
  const reason =
    unavailable.length > 0
      ? "unavailable"
      : attention.length > 0
        ? "attention"
        : completed.length > 0
          ? "completed"
          : "timeout";
  return {
    status: "ok",
    action: "wait",
    reason,
    runs,
    completed,
    attention,
    ...(unavailable.length > 0 ? { unavailable } : {}),
  } as const;
}

/** SPEC §15 `subagents cancel {runId}`: the kill cascade, for a run in the caller's tree only. */
export async function cancelRun(ctx: ToolContext, runId: string) {
  const sessionKey = (
    await controlledRuns(ctx.shards, ctx.requester.sessionKey, [runId], await requesterSessionId(ctx))
  ).get(runId);
  const run = sessionKey ? await progressOf(ctx, sessionKey, runId, 0) : undefined;
  if (!sessionKey || !run) {
    // A collector of the caller still queued (SPEC §15) has no child yet: it is ended before it starts.
    const queued = await ctx.session(ctx.requester.sessionKey).cancelCollectors([runId]);
    if (queued.ok && queued.value.cancelled.length > 0)
      return {
        status: "ok",
        action: "cancel",
        runId,
        killed: 1,
        labels: [],
        text: "Killed 1 queued collector.",
      } as const;
    return { status: "forbidden", error: OUTSIDE_TREE } as const;
  }
  // A run already over is reported as such; else the cascade (which may find it just ended).
  const killed = isUnderway(run) && (await killTree(ctx, sessionKey)) > 0 ? 1 : 0;
  return {
    status: "ok",
    action: "cancel",
    runId,
    killed,
    labels: killed > 0 ? [run.label] : [],
    text: killed > 0 ? `Killed 1: ${run.label}.` : `${run.label}: already finished, nothing to cancel.`,
  } as const;
}
