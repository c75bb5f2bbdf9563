import { keyOptionsOf } from "../config/key-options";
import type { SwitchboardConfig } from "../config/schema";
import { announceTargetFromKey, deriveChannel, parseSessionKey } from "../keys";
import { ANNOUNCE_SKIP, NO_REPLY } from "../messaging/inter-session";
import { nextFlowStep } from "../messaging/reply-flow";
import { resolveSendPolicy } from "../policy/send-policy";
import type { OutboundMessage } from "../queue/messages";
import type { RunUsage } from "../runtimes/types";
import { buildCompletion } from "../subagents/completion";
import { redactSpawnAttachments } from "../subagents/redact-attachments";
import type { TranscriptMessage } from "../transcript/message";
import { type DeliveryContext, readMeta, type SessionMeta, type SpawnInfo, updateMeta } from "./meta";
import { enqueueEffect } from "./outbox";
import { markRunEnded, type ReplyFlow, type RunRow, type RunStatus } from "./run-store";
import { appendMessages, summaryChanges } from "./transcript";

export interface RunEnding {
  status: Exclude<RunStatus, "queued" | "running">;
  /** False for a run a steer replaced: the new run reports instead. */
  announce?: boolean;
  reply?: string;
  error?: string;
  usage?: RunUsage;
  messages: TranscriptMessage[];
}

const sessionStatusOf = { ok: "done", error: "failed", timeout: "timeout", killed: "killed" } as const;

/**
 * Keys are lower-cased, channel ids are not always (Slack's `C024BE91L`): when the recorded delivery
 * context is the same chat, its spelling of the chat and thread ids is the one to post to.
 */
function spelledAsRecorded(target: DeliveryContext, recorded: DeliveryContext | undefined): DeliveryContext {
  if (!recorded || recorded.channel !== target.channel || recorded.to.toLowerCase() !== target.to)
    return target;
  const thread = recorded.threadId === undefined ? undefined : String(recorded.threadId);
  return {
    ...target,
    to: recorded.to,
    ...(thread !== undefined && thread.toLowerCase() === target.threadId ? { threadId: thread } : {}),
  };
}

/** Where a session's announces and updates go (SPEC §8): from its key, else its delivery context. */
export function announceTarget(meta: SessionMeta, config: SwitchboardConfig): DeliveryContext | undefined {
  const fromKey = announceTargetFromKey(meta.sessionKey, keyOptionsOf(config));
  if (fromKey) return spelledAsRecorded(fromKey, meta.deliveryContext);
  if (meta.deliveryContext) return meta.deliveryContext;
  return meta.lastChannel && meta.lastTo ? { channel: meta.lastChannel, to: meta.lastTo } : undefined;
}

/** The session's channel as other sessions see it (SPEC §5.1 `channel`). */
export function sessionChannel(meta: SessionMeta, config: SwitchboardConfig): string {
  const parsed = parseSessionKey(meta.sessionKey, keyOptionsOf(config));
  return parsed
    ? deriveChannel(parsed, { channel: meta.recordedChannel, lastChannel: meta.lastChannel })
    : "unknown";
}

export interface Delivery {
  runId: string;
  /** What the post is (reply, announce, command): with the runId, its idempotency key. */
  purpose: string;
  text: string;
  target: DeliveryContext;
}

/** Queues an outbound post through the outbox; the idempotency key makes a redelivery one post. */
export function queueDelivery(sql: SqlStorage, meta: SessionMeta, delivery: Delivery): void {
  const idempotencyKey = `${delivery.runId}:${delivery.purpose}`;
  const message: OutboundMessage = {
    type: "outbound",
    ...delivery.target,
    text: delivery.text,
    sessionKey: meta.sessionKey,
    runId: delivery.runId,
    idempotencyKey,
  };
  enqueueEffect(sql, "deliver", `deliver:${idempotencyKey}`, message);
}

/** Queues an outbound delivery if the send policy allows it (SPEC §6: every outbound delivery). */
export function queueOutbound(
  sql: SqlStorage,
  config: SwitchboardConfig,
  meta: SessionMeta,
  delivery: Delivery,
): boolean {
  const parsed = parseSessionKey(meta.sessionKey, keyOptionsOf(config));
  const chatType = meta.chatType ?? parsed?.chatType;
  const decision = resolveSendPolicy(config.session.sendPolicy, {
    sessionKey: meta.sessionKey,
    channel: delivery.target.channel,
    ...(chatType ? { chatType } : {}),
    ...(meta.sendPolicy ? { override: meta.sendPolicy } : {}),
  });
  if (decision === "deny") return false;
  queueDelivery(sql, meta, delivery);
  return true;
}

/** Follow-ups of an ended run: the next step of its exchange, and a channel reply. */
function queueFollowUps(
  sql: SqlStorage,
  config: SwitchboardConfig,
  meta: SessionMeta,
  run: RunRow,
  ending: RunEnding,
): void {
  if (ending.status !== "ok") return;
  if (run.flow) {
    const flow = JSON.parse(run.flow) as ReplyFlow;
    const step = nextFlowStep(flow, {
      sessionKey: meta.sessionKey,
      channel: sessionChannel(meta, config),
      reply: ending.reply,
    });
    if (step.kind === "turn") {
      enqueueEffect(sql, "turn", `turn:${step.request.runId}`, {
        sessionKey: step.sessionKey,
        request: step.request,
      });
    } else if (step.kind === "announce") {
      const target = announceTarget(meta, config);
      if (target)
        queueOutbound(sql, config, meta, { runId: run.runId, purpose: "announce", text: step.text, target });
    }
  }
  const reply = ending.reply?.trim() ?? "";
  if (run.replyTo && reply && reply !== NO_REPLY && reply !== ANNOUNCE_SKIP) {
    const target = JSON.parse(run.replyTo) as DeliveryContext;
    queueOutbound(sql, config, meta, { runId: run.runId, purpose: "reply", text: reply, target });
  }
}

/** Records a run's end in one transaction: its messages, the run, the session totals, the follow-ups. */
export function recordRunEnding(
  sql: SqlStorage,
  config: SwitchboardConfig,
  run: RunRow,
  ending: RunEnding,
): void {
  const meta = readMeta(sql);
  if (!meta) return;
  const now = Date.now();
  const appended = appendMessages(
    sql,
    redactSpawnAttachments(ending.messages),
    meta.firstUserText !== undefined,
  );
  markRunEnded(sql, run.runId, { ...ending, endedAt: now });
  updateMeta(sql, {
    status: sessionStatusOf[ending.status],
    endedAt: now,
    updatedAt: Math.max(meta.updatedAt, now),
    runtimeMs: (meta.runtimeMs ?? 0) + (now - (run.startedAt ?? now)),
    inputTokens: (meta.inputTokens ?? 0) + (ending.usage?.input ?? 0),
    outputTokens: (meta.outputTokens ?? 0) + (ending.usage?.output ?? 0),
    totalTokens: (meta.totalTokens ?? 0) + (ending.usage?.total ?? 0),
    abortedLastRun: ending.status === "killed" || ending.status === "timeout" ? 1 : 0,
    ...summaryChanges(appended),
    ...(meta.spawn && meta.spawn.archiveAfterMinutes > 0
      ? { archiveAt: now + meta.spawn.archiveAfterMinutes * 60_000 }
      : {}),
  });
  queueFollowUps(sql, config, meta, run, ending);
  if (meta.spawn && ending.announce !== false) queueCompletion(sql, meta, meta.spawn, run, ending, now);
}

/**
 * The completion of a sub-agent run (SPEC §5.4), as an outbox entry in the same transaction as the
 * run's end: delivered until acknowledged, deduplicated by the requester. A child whose final reply is
 * exactly ANNOUNCE_SKIP reports nothing, but its cleanup still happens.
 */
function queueCompletion(
  sql: SqlStorage,
  meta: SessionMeta,
  spawn: SpawnInfo,
  run: RunRow,
  ending: RunEnding,
  now: number,
): void {
  const silent = ending.status === "ok" && ending.reply?.trim() === ANNOUNCE_SKIP;
  const completion = buildCompletion({
    childKey: meta.sessionKey,
    childSessionId: meta.sessionId,
    runId: run.runId,
    title: spawn.label ?? spawn.task,
    status: ending.status,
    ...(ending.error !== undefined ? { error: ending.error } : {}),
    ...(ending.reply !== undefined ? { reply: ending.reply } : {}),
    messages: ending.messages,
    runtimeMs: now - (run.startedAt ?? now),
    ...(ending.usage ? { usage: ending.usage } : {}),
  });
  enqueueEffect(sql, "completion", `completion:${run.runId}`, {
    // The requester first; if it is gone, its own requester, and so on up the lineage.
    targets: [spawn.requesterKey, ...(meta.lineage ?? [])],
    turnRunId: crypto.randomUUID(),
    completion,
    silent,
    cleanup: spawn.cleanup === "delete" && spawn.mode === "run",
  });
}
