import { subagentSettings } from "../../config/agents";
import type { SwitchboardConfig } from "../../config/schema";
import { type ChildRow, listChildren } from "../../index-db/children";
import { indexShards } from "../../index-db/shards";
import { completionTurnKey, readsCompletion } from "../../subagents/completion";
import { isActive } from "../../subagents/targets";
import { type DeliveryStatus, isUnderway } from "../api";
import { sessionApi } from "../client";
import { readRecord } from "../record/record";
import { spawnRunOf } from "../store/children";
import {
  hasRunWithDedupeKey,
  previousRun,
  queuedRuns,
  type RunEnding,
  type RunRow,
} from "../store/run-store";
import { isYielded, yieldNote } from "../writes/run-progress";

// One completion upstream per task (README, "Sub-agents"): a sub-agent that ends its run while work of
// its task is outstanding waits for it, as after sessions_yield, and the run that takes the last of it
// reports; a run a completion starts after the task reported sends nothing upstream.

/** The hidden note of a run that waits without having called sessions_yield: context for its next turn. */
const WAITING_NOTE =
  "Turn ended while sub-agents were still working: their completions start the next turns, and the task's result is reported after the last one.";

/**
 * Whether a sub-agent's run reports its task upstream. A run a completion started carries the task on
 * only if the run before it yielded; otherwise the task has already reported (or the run stands alone).
 */
export function carriesTask(sql: SqlStorage, row: RunRow): boolean {
  if (!readsCompletion(row.dedupeKey)) return true;
  const previous = previousRun(sql, row.seq);
  return previous === undefined || isYielded(sql, previous);
}

/** A run's ending as its task needs it: a sub-agent's run that does not carry the task reports nothing. */
export function taskEnding(sql: SqlStorage, row: RunRow, ending: RunEnding): RunEnding {
  if (!readRecord(sql)?.spawn || carriesTask(sql, row)) return ending;
  return { ...ending, announce: false };
}

const hasQueuedCompletion = (sql: SqlStorage) =>
  queuedRuns(sql).some((queued) => readsCompletion(queued.dedupeKey));

/**
 * Delivery states of a completion still on its way. A `suspended` one waits for an operator, who may
 * dismiss it: waiting for it could be waiting forever, so it is left to `subagents wait` (`attention`).
 */
const UNDELIVERED: ReadonlySet<DeliveryStatus> = new Set(["pending", "in_progress"]);

/**
 * Whether a child's latest run is still work of this task: underway, or ended with its completion not
 * yet here. Asked of the child itself, because its index row can say it ended before its completion
 * left (the row is written first), or say it runs when it ended with nothing to report (ANNOUNCE_SKIP).
 * If the child cannot be asked, its index row decides.
 */
async function stillWorking(env: Env, child: ChildRow & { runId: string }): Promise<boolean> {
  try {
    const found = await sessionApi(env.SESSION, child.sessionKey).waitForProgress(child.runId, 0);
    return found.ok && (isUnderway(found.value) || UNDELIVERED.has(found.value.deliveryStatus));
  } catch (cause) {
    console.warn(`child ${child.sessionKey}: progress not read: ${String(cause)}`);
    return isActive(child);
  }
}

/**
 * Whether a sub-agent's run that ended `ok` must wait instead of reporting: its task still has
 * children working, or their completions on the way or queued here. Its children come from the index
 * (as `subagents` lists them); one whose completion this session already took is done. If the index
 * cannot be read, the run reports now rather than risk waiting for nothing.
 */
export async function mustWait(
  env: Env,
  config: SwitchboardConfig,
  sql: SqlStorage,
  row: RunRow,
  ending: RunEnding,
): Promise<boolean> {
  const record = readRecord(sql);
  if (!record?.spawn || ending.status !== "ok" || ending.announce === false) return false;
  // A leaf cannot spawn, so it has no children to look up.
  if (record.spawnDepth >= subagentSettings(config, record.agentId).maxSpawnDepth) return false;
  if (!carriesTask(sql, row)) return false;
  if (hasQueuedCompletion(sql)) return true;
  let children: ChildRow[];
  try {
    // A collector's result is collected explicitly (agents_wait): the task never waits for it implicitly.
    children = await listChildren(indexShards(env), record.sessionKey, {
      collectors: false,
      parentSessionId: record.sessionId,
    });
  } catch (cause) {
    console.warn(`run ${row.runId}: children not read, reporting now: ${String(cause)}`);
    return false;
  }
  // Each child is asked about the run this session spawned it with (its `child` row): its progress
  // follows the task to the run that carries it, and a later run of the child that does not (a late
  // completion's, which reports nothing upstream) is not mistaken for work of the task. The index's
  // latest run of the child stands in when the row has none.
  const notTaken = children
    .map((child) => ({ ...child, runId: spawnRunOf(sql, child.sessionKey) ?? child.runId }))
    .filter(
      (child): child is ChildRow & { runId: string } =>
        child.runId !== undefined && !hasRunWithDedupeKey(sql, completionTurnKey(child.runId)),
    );
  const working = await Promise.all(notTaken.map((child) => stillWorking(env, child)));
  // A completion may have arrived meanwhile.
  return working.includes(true) || hasQueuedCompletion(sql);
}

/**
 * The ending of a run that waits: it reports nothing and leaves the note a yield leaves, so it reads
 * `waiting` and the run started by its last child's completion reports, as after sessions_yield.
 */
export function waitingEnding(row: RunRow, ending: RunEnding, now: number): RunEnding {
  return {
    ...ending,
    announce: false,
    messages: [...ending.messages, yieldNote(row.runId, WAITING_NOTE, now)],
  };
}
