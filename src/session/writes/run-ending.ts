import type { AgentConfig, SwitchboardConfig } from "../../config/schema";
import { isCronSlotKey } from "../../cron/run-report";
import { redactSecrets } from "../../history/redact";
import { ANNOUNCE_SKIP, NO_REPLY } from "../../messaging/inter-session";
import { nextFlowStep } from "../../messaging/reply-flow";
import { runModel, runProvider } from "../../runtimes/run-messages";
import { webhookReply } from "../../runtimes/webhook";
import { buildCompletion, completionTurn } from "../../subagents/completion";
import { redactSpawnAttachments } from "../../subagents/redact-attachments";
import type { DeferredResult } from "../api";
import { readRecord, type SessionRecord, type SpawnInfo, updateRecord } from "../record/record";
import { addDelivery } from "../store/delivery-store";
import { takeLiveDraft } from "../store/live-drafts";
import { addToOutbox, completionKey } from "../store/outbox-store";
import {
  markRunEnded,
  RESTARTED_BY_STEER,
  type RunEnding,
  type RunRow,
  STATUS_OF_ENDING,
} from "../store/run-store";
import { clearToolCalls } from "../store/tool-calls";
import { appendMessages, summaryChanges } from "../transcript/transcript";
import { addCollectorResult, collectorReports } from "./collector-result";
import { ARCHIVE_WHEN_IDLE } from "./lifecycle";
import {
  addDraftRetraction,
  addPostIfAllowed,
  addPostNotRequired,
  announceTarget,
  sessionChannel,
} from "./posts";
import { recordCompletionOwed } from "./run-progress";
import { answerSuperseded } from "./superseded";
import { oweRunWebhook } from "./webhooks";

const seconds = (ms: number) => Math.round(ms / 1000);

/** A session's cost plus a run's, in micro-dollars as each is (runtimes/pricing.ts): no float noise adds up. */
const sumUsd = (total: number | undefined, cost: number) =>
  Math.round(((total ?? 0) + cost) * 1_000_000) / 1_000_000;

/** The error of a run a newer message interrupted (SPEC §21 busy `interrupt`). */
export const INTERRUPTED = "run interrupted by a newer message";

/**
 * Why a run was aborted: its timeout, a kill, a kill cascading from an ancestor, a steer restarting it,
 * its own sessions_yield, or a newer message of a chat whose channel interrupts (SPEC §21 busy).
 */
export type AbortReason = "timeout" | "killed" | "cascade" | "steer" | "yield" | "interrupt";

/**
 * How an aborted run ends. A steered run is replaced and a yielded one is waiting: neither reports. A
 * run killed because an ancestor was killed does not report either: its requester is being stopped,
 * and a completion would start that requester's next turn.
 */
export function abortedEnding(reason: AbortReason, row: RunRow, messages: RunEnding["messages"]): RunEnding {
  switch (reason) {
    case "yield":
      return { status: "ok", announce: false, messages };
    case "steer":
      return { status: "killed", error: RESTARTED_BY_STEER, announce: false, messages: [] };
    case "killed":
      return { status: "killed", error: "run killed", messages: [] };
    case "cascade":
      return { status: "killed", error: "run killed", announce: false, messages: [] };
    // Killed: no reply is posted, and its partial work is dropped; the newer run answers its message.
    case "interrupt":
      return { status: "killed", error: INTERRUPTED, messages: [] };
    default:
      return { status: "timeout", error: `run timed out after ${seconds(row.timeoutMs)}s`, messages: [] };
  }
}

/** How a run ends with its webhook agent's posted result. */
export function resultEnding(
  runId: string,
  agent: AgentConfig | undefined,
  result: DeferredResult,
): RunEnding {
  const { text, usage, messages } = webhookReply({ runId, agent }, result);
  return {
    status: "ok",
    reply: text,
    ...(usage ? { usage } : {}),
    ...(agent ? { model: runModel(agent), provider: runProvider(agent) } : {}),
    messages,
  };
}

/**
 * Follow-ups of an ended run: the next step of its exchange, a channel reply, a draft retracted. A run a
 * newer message interrupted owes its Discord interaction the note saying where the answer is (SPEC §21
 * busy): owed here, once the run's live calls are over, the note replaces its draft (`@original`, the
 * "thinking…" or the partial reply) so nothing of the killed run stays posted and nothing overwrites it.
 */
function addFollowUps(
  sql: SqlStorage,
  config: SwitchboardConfig,
  record: SessionRecord,
  run: RunRow,
  ending: RunEnding,
  now: number,
): void {
  // What the chat was shown while the run worked (SPEC §21 Live): the reply completes it, else it goes.
  const draft = takeLiveDraft(sql, run.runId);
  const replied =
    ending.status === "ok"
      ? addReplies(sql, config, record, run, ending, draft?.messageId)
      : ending.error === INTERRUPTED &&
        answerSuperseded(sql, record, config, { replyTo: run.replyTo, runId: run.runId, note: "later" }, now);
  if (draft && run.replyTo && !replied) {
    const { replyToMessageId: _, interaction, ...target } = run.replyTo;
    addDraftRetraction(sql, record, {
      runId: run.runId,
      target,
      draftMessageId: draft.messageId,
      ...(interaction ? { origin: { interaction } } : {}),
    });
  }
}

/** An ok run's follow-ups: the next step of its exchange, and its reply; true when a reply is owed. */
function addReplies(
  sql: SqlStorage,
  config: SwitchboardConfig,
  record: SessionRecord,
  run: RunRow,
  ending: RunEnding,
  draftMessageId: string | undefined,
): boolean {
  if (run.flow) {
    const step = nextFlowStep(run.flow, {
      sessionKey: record.sessionKey,
      channel: sessionChannel(record, config),
      reply: ending.reply,
    });
    if (step.kind === "turn") {
      addToOutbox(sql, "turn", `turn:${step.request.runId}`, {
        targets: [step.sessionKey],
        request: step.request,
      });
    } else if (step.kind === "announce") {
      const target = announceTarget(record, config);
      if (target)
        addPostIfAllowed(sql, config, record, {
          runId: run.runId,
          purpose: "announce",
          text: step.text,
          target,
        });
    }
  }
  if (!run.replyTo) return false;
  const reply = ending.reply?.trim() ?? "";
  // A run that reads a completion posts the update for it: the completion's follow-on announce.
  // The chat alone is the post's address; the platform message it answers travels as its origin (§21).
  const { replyToMessageId, interaction, ...target } = run.replyTo;
  const post = {
    runId: run.runId,
    purpose: "reply",
    target,
    // A cron run's reply is its job's announce (SPEC §22), as a completion's follow-on is.
    kind:
      run.dedupeKey?.startsWith("completion:") || isCronSlotKey(run.dedupeKey)
        ? ("announce" as const)
        : ("reply" as const),
    ...(replyToMessageId || interaction
      ? {
          origin: {
            ...(replyToMessageId ? { messageId: replyToMessageId } : {}),
            ...(interaction
              ? { interaction: { token: interaction.token, expiresAt: interaction.expiresAt } }
              : {}),
          },
        }
      : {}),
  };
  // Intentional silence is an answer: recorded as not required, never retried (SPEC §16).
  if (!reply || reply === NO_REPLY || reply === ANNOUNCE_SKIP) {
    addPostNotRequired(sql, post, reply ? `the run answered ${reply}` : "the run gave no reply");
    return false;
  }
  return addPostIfAllowed(sql, config, record, {
    ...post,
    text: reply,
    ...(draftMessageId ? { draftMessageId } : {}),
  });
}

/**
 * An ending with its error's secrets masked: once here, whatever wrote the error, so every face that reads
 * it (the run, its wait, its stream, a completion, a collector's result, a cut wait item, the console)
 * reads it masked. A runtime's own secrets were masked already, by the run executor.
 */
function redactedError(ending: RunEnding): RunEnding {
  return ending.error === undefined ? ending : { ...ending, error: redactSecrets(ending.error).text };
}

/** Records a run's end (call inside a transaction): its messages, the run, the session totals, the follow-ups. */
export function recordRunEnding(
  sql: SqlStorage,
  config: SwitchboardConfig,
  run: RunRow,
  reported: RunEnding,
): void {
  const ending = redactedError(reported);
  const record = readRecord(sql);
  if (!record) return;
  const now = Date.now();
  const appended = appendMessages(
    sql,
    redactSpawnAttachments(ending.messages),
    record.firstUserText !== undefined,
  );
  markRunEnded(sql, run.runId, { ...ending, endedAt: now });
  clearToolCalls(sql, run.runId);
  updateRecord(sql, {
    status: STATUS_OF_ENDING[ending.status],
    endedAt: now,
    updatedAt: Math.max(record.updatedAt, now),
    runtimeMs: (record.runtimeMs ?? 0) + (now - (run.startedAt ?? now)),
    // A run without usage leaves the totals as they were: unknown stays unknown, never 0. OpenClaw's
    // totalTokens: what the latest run's last model call had in context, not a lifetime sum.
    ...(ending.usage
      ? {
          inputTokens: (record.inputTokens ?? 0) + ending.usage.input,
          outputTokens: (record.outputTokens ?? 0) + ending.usage.output,
          totalTokens: ending.usage.lastCallTokens ?? ending.usage.total,
        }
      : {}),
    // A cost is summed only from runs that have one (pricing set): a session without any has none.
    ...(ending.usage?.estimatedCostUsd !== undefined
      ? { estimatedCostUsd: sumUsd(record.estimatedCostUsd, ending.usage.estimatedCostUsd) }
      : {}),
    ...(ending.model !== undefined ? { answeredModel: ending.model } : {}),
    abortedLastRun: ending.status === "killed" || ending.status === "timeout" ? 1 : 0,
    ...summaryChanges(appended),
    ...(record.spawn && record.spawn.archiveAfterMinutes > 0 && record.archiveAt !== ARCHIVE_WHEN_IDLE
      ? { archiveAt: now + record.spawn.archiveAfterMinutes * 60_000 }
      : {}),
  });
  addFollowUps(sql, config, record, run, ending, now);
  if (run.webhook) oweRunWebhook(sql, record, { ...run, webhook: run.webhook }, ending, now);
  const owed =
    record.spawn !== undefined &&
    (record.spawn.collect
      ? collectorReports(ending) && addCollectorResult(sql, record.spawn, run.runId, ending, now)
      : ending.announce !== false &&
        !answersThread(record.spawn, run) &&
        addCompletion(sql, record, record.spawn, run, ending, now));
  recordCompletionOwed(sql, run.runId, owed);
}

/**
 * A thread-bound child's run that answers someone writing in its thread (SPEC §21): that is the thread's
 * own conversation, answered there; only the work its requester gave it is announced back.
 */
function answersThread(spawn: SpawnInfo, run: RunRow): boolean {
  return spawn.thread !== undefined && (run.triggerMessageId?.startsWith("channel:") ?? false);
}

/**
 * The completion of a sub-agent run (SPEC §5.4): a turn for its requester, owed through the outbox in
 * the same transaction as the run's end, delivered until acknowledged and deduplicated by the requester.
 * A child whose final reply is exactly ANNOUNCE_SKIP reports nothing, but its cleanup still happens.
 * True when a completion is owed.
 */
function addCompletion(
  sql: SqlStorage,
  record: SessionRecord,
  spawn: SpawnInfo,
  run: RunRow,
  ending: RunEnding,
  now: number,
): boolean {
  const cleanup = spawn.cleanup === "delete" && spawn.mode === "run";
  if (ending.status === "ok" && ending.reply?.trim() === ANNOUNCE_SKIP) {
    if (cleanup) addToOutbox(sql, "remove_session", `remove:${run.runId}`, {});
    return false;
  }
  const completion = buildCompletion({
    childKey: record.sessionKey,
    childSessionId: record.sessionId,
    runId: run.runId,
    title: spawn.label ?? spawn.task,
    status: ending.status,
    ...(ending.error !== undefined ? { error: ending.error } : {}),
    ...(ending.reply !== undefined ? { reply: ending.reply } : {}),
    messages: ending.messages,
    runtimeMs: now - (run.startedAt ?? now),
    ...(ending.usage ? { usage: ending.usage } : {}),
    ...("structured" in ending ? { structured: ending.structured } : {}),
    ...(ending.schemaError !== undefined ? { schemaError: ending.schemaError } : {}),
  });
  addDelivery(
    sql,
    "completion",
    { runId: run.runId, target: spawn.requesterKey },
    {
      kind: "turn",
      key: completionKey(run.runId),
      payload: {
        // The requester first; if it is gone, its own requester, and so on up the lineage.
        targets: [spawn.requesterKey, ...(record.lineage ?? [])],
        // The requester's session that spawned it (SPEC §23): a later session of its key is not it.
        ...(record.spawnedById ? { targetSessionId: record.spawnedById } : {}),
        // A thread-bound child's update goes into its thread (SPEC §21), unless its requester is itself a
        // sub-agent, whose completions stay internal (writes.ts writeTurn).
        request: {
          ...completionTurn(completion, crypto.randomUUID(), spawn.requesterKey),
          ...(spawn.thread ? { replyToThread: spawn.thread } : {}),
        },
        // Deleting a `cleanup: "delete"` child waits for its completion to be in the requester's hands.
        ...(cleanup ? { afterwards: "remove_session" as const } : {}),
      },
    },
    now,
  );
  return true;
}
