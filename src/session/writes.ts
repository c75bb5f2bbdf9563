import type { SwitchboardConfig } from "../config/schema";
import type { Provenance, TranscriptMessage } from "../transcript/message";
import { type DeliveryContext, readMeta, type SessionMeta, updateMeta } from "./meta";
import { enqueueEffect } from "./outbox";
import { announceTarget, queueDelivery } from "./run-lifecycle";
import { hasQueuedRuns, insertRun, runningRuns, type TurnRequest } from "./run-store";
import { appendMessages, messageCounts, summaryChanges } from "./transcript";
import type { ImportReceipt } from "./types";

/** Runs without a timeout of their own still end: a runtime that never answers cannot hold a session. */
export const DEFAULT_RUN_TIMEOUT_MS = 10 * 60 * 1000;

/** An inbound channel message that starts no run (a `/send` command, or one the send policy blocks). */
export interface InboundRecord {
  messageId: string;
  text: string;
  provenance: Provenance;
  replyTo: DeliveryContext;
  runId: string;
  answer?: string;
}

/** Owes the index the session's current row (delivered through the outbox). */
export function enqueueIndexSync(sql: SqlStorage): void {
  enqueueEffect(sql, "index_sync", "index", { version: readMeta(sql)?.version ?? 0 });
}

/** Imports messages in order, skipping ids already stored. Call inside a transaction. */
export function writeImport(
  sql: SqlStorage,
  meta: SessionMeta,
  messages: TranscriptMessage[],
): ImportReceipt {
  const hadMessages = messageCounts(sql).all > 0;
  const appended = appendMessages(sql, messages, meta.firstUserText !== undefined);
  if (appended.imported > 0) {
    const newest = Math.min(appended.newestTimestamp ?? meta.updatedAt, Date.now());
    updateMeta(sql, {
      // updatedAt is the last activity: the newest message, which for an import may lie in the past.
      updatedAt: hadMessages ? Math.max(meta.updatedAt, newest) : newest,
      ...summaryChanges(appended),
    });
    enqueueIndexSync(sql);
  }
  return { imported: appended.imported, skipped: appended.skipped, totalMessages: messageCounts(sql).all };
}

/** Appends a turn's inbound message and queues its run. Call inside a transaction. */
export function writeTurn(
  sql: SqlStorage,
  meta: SessionMeta,
  config: SwitchboardConfig,
  request: TurnRequest,
  now: number,
): void {
  const message: TranscriptMessage = {
    id: request.message.id ?? `in:${request.runId}`,
    role: "user",
    content: request.message.text,
    provenance: request.message.provenance,
    timestamp: now,
    runId: request.runId,
  };
  const appended = appendMessages(sql, [message], meta.firstUserText !== undefined);
  // A completion's reply goes to the session's own channel; a nested (sub-agent) requester's stays internal.
  const ownChannel = request.replyToOwnChannel && !meta.spawn ? announceTarget(meta, config) : undefined;
  const replyTo = request.replyTo ?? ownChannel;
  insertRun(
    sql,
    { ...request, ...(replyTo ? { replyTo } : {}) },
    message.id,
    request.timeoutMs ?? DEFAULT_RUN_TIMEOUT_MS,
    now,
  );
  updateMeta(sql, {
    updatedAt: Math.max(meta.updatedAt, now),
    lastRunId: request.runId,
    // New work brings an archived sub-agent session back into listings.
    archivedAt: null,
    archiveAt: null,
    ...summaryChanges(appended),
    ...(request.replyTo
      ? { lastChannel: request.replyTo.channel, lastTo: request.replyTo.to, deliveryContext: request.replyTo }
      : {}),
  });
  enqueueEffect(sql, "run_index", `run:${request.runId}`, {
    runId: request.runId,
    sessionKey: meta.sessionKey,
    createdAt: now,
  });
  enqueueIndexSync(sql);
}

/** Records an inbound message without a run, and its answer if any; true if it was seen before. */
export function writeInbound(
  sql: SqlStorage,
  meta: SessionMeta,
  inbound: InboundRecord,
  now: number,
): boolean {
  const messages: TranscriptMessage[] = [
    {
      id: inbound.messageId,
      role: "user",
      content: inbound.text,
      provenance: inbound.provenance,
      timestamp: now,
    },
  ];
  if (inbound.answer) {
    messages.push({
      id: `${inbound.messageId}:answer`,
      role: "assistant",
      content: inbound.answer,
      timestamp: now,
    });
  }
  const appended = appendMessages(sql, messages, meta.firstUserText !== undefined);
  if (appended.imported === 0) return true;
  updateMeta(sql, {
    updatedAt: Math.max(meta.updatedAt, now),
    lastChannel: inbound.replyTo.channel,
    lastTo: inbound.replyTo.to,
    deliveryContext: inbound.replyTo,
    ...summaryChanges(appended),
  });
  // The owner's own command is answered even when sending is now off: it is the reply they asked for.
  if (inbound.answer) {
    queueDelivery(sql, meta, {
      runId: inbound.runId,
      purpose: "command",
      text: inbound.answer,
      target: inbound.replyTo,
    });
  }
  enqueueIndexSync(sql);
  return false;
}

/** Keeps a yield's message in the transcript as hidden context (SPEC §5.5). */
export function writeYieldNote(
  sql: SqlStorage,
  meta: SessionMeta,
  runId: string,
  message: string,
  now: number,
): void {
  const note: TranscriptMessage = {
    id: `yield:${runId}`,
    role: "system",
    content: message,
    hidden: true,
    provenance: { kind: "system" },
    timestamp: now,
    runId,
  };
  appendMessages(sql, [note], meta.firstUserText !== undefined);
}

/** Archives an idle sub-agent session once its `archiveAfterMinutes` have passed (SPEC §5.4). */
export function archiveIfDue(sql: SqlStorage, meta: SessionMeta, now: number): void {
  if (!meta.archiveAt || meta.archiveAt > now || hasQueuedRuns(sql) || runningRuns(sql).length > 0) return;
  updateMeta(sql, { archivedAt: now, archiveAt: null });
  enqueueIndexSync(sql);
}
