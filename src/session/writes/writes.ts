import type { SwitchboardConfig } from "../../config/schema";
import type { TranscriptMessage } from "../../transcript/message";
import type { CreateSessionInit, ImportReceipt, TurnRequest } from "../api";
import { chatOf, insertRecord, readRecord, type SessionRecord, updateRecord } from "../record/record";
import { childKeys, clearChildren, noteChild } from "../store/children";
import { cancelQueuedCollectors, clearCollectors, killOwedChildren } from "../store/collector-store";
import { clearCompaction } from "../store/compaction-store";
import { clearDeliveries } from "../store/delivery-store";
import { appendEvent, clearEvents, systemEvent } from "../store/event-log";
import { clearGroupContext } from "../store/group-context";
import { clearLiveDrafts } from "../store/live-drafts";
import { addIndexSync, addToOutbox, clearOutbox } from "../store/outbox-store";
import {
  clearRuns,
  DEFAULT_RUN_TIMEOUT_MS,
  hasAnyRun,
  hasQueuedRuns,
  insertRun,
  runningRuns,
} from "../store/run-store";
import { clearRunStreams } from "../store/run-stream";
import { clearSteers } from "../store/steer-slots";
import { clearStructuredOutputs } from "../store/structured-output";
import { clearToolCalls } from "../store/tool-calls";
import { clearWatchers, registerWatcher, watchedTargets } from "../store/watchers";
import { clearAttachments, insertAttachments } from "../transcript/attachments";
import { clearSearchProgress } from "../transcript/search-index";
import { appendMessages, clearTranscript, messageCounts, summaryChanges } from "../transcript/transcript";
import { addCollectorResult } from "./collector-result";
import { announceTarget } from "./posts";
import { yieldNote } from "./run-progress";
import { clearSteering } from "./steering";

// The writes of the session object's RPC methods: each is called inside one transaction, with the
// outbox entries it owes.

/** Writes a new session, replacing whatever a deleted session left behind in every table. */
export function writeCreation(
  sql: SqlStorage,
  init: CreateSessionInit,
  now: number,
  /** A spawned child's first run: its parent notes the child with it. */
  spawnRunId?: string,
): void {
  // A key created again inherits no children (SPEC §23); a requester never written keeps those noted
  // (a plain spawn needs no requester record), and so does one seeded from D1 (deleted_at 0: wiped).
  if ((readRecord(sql)?.deletedAt ?? 0) > 0) clearChildren(sql);
  clearTranscript(sql);
  // What the old members' children are still owed survives, as kills (index_delete waits for those).
  clearOutbox(sql, "collector_release");
  killOwedChildren(sql, now);
  clearRuns(sql);
  clearAttachments(sql);
  clearSteers(sql);
  clearSteering(sql);
  clearToolCalls(sql);
  clearStructuredOutputs(sql);
  clearEvents(sql);
  clearRunStreams(sql);
  clearWatchers(sql);
  clearDeliveries(sql);
  clearSearchProgress(sql);
  clearCollectors(sql);
  clearCompaction(sql);
  clearGroupContext(sql);
  clearLiveDrafts(sql);
  const { attachments, channel, parentSessionKey, spawnDepth, deliveryContext, ...fields } = init;
  insertRecord(
    sql,
    {
      ...fields,
      // The session keeps the chat; what belongs to one message (its id, an interaction) stays with its run.
      ...(deliveryContext ? { deliveryContext: chatOf(deliveryContext) } : {}),
      recordedChannel: channel ?? deliveryContext?.channel,
      parentSessionKey: parentSessionKey ?? init.spawnedBy,
      spawnDepth: spawnDepth ?? 0,
      createdAt: now,
      updatedAt: now,
    },
    now,
  );
  insertAttachments(sql, attachments ?? []);
  appendEvent(sql, systemEvent("created", "session created"), now);
  addIndexSync(sql);
  if (init.spawnedBy)
    addToOutbox(sql, "child_created", "child_created", {
      parentKey: init.spawnedBy,
      childKey: init.sessionKey,
      ...(spawnRunId ? { runId: spawnRunId } : {}),
    });
}

/** A sub-agent session with its forked transcript and its first turn: one write, never a child without its run. */
export function writeSpawn(
  sql: SqlStorage,
  spawn: { init: CreateSessionInit; fork: TranscriptMessage[]; turn: TurnRequest },
  config: SwitchboardConfig,
  now: number,
): void {
  writeCreation(sql, spawn.init, now, spawn.turn.runId);
  const created = readRecord(sql);
  if (!created) throw new Error("the session record was not written");
  // The requester watches its child from the start (SPEC §13).
  if (spawn.fork.length > 0) writeImport(sql, created, spawn.fork);
  writeTurn(sql, readRecord(sql) ?? created, config, spawn.turn, now);
  // After the fork and the task: copies of the requester's own history never notify it.
  if (spawn.init.spawn)
    registerWatcher(sql, spawn.init.spawn.requesterKey, readRecord(sql)?.stateVersion ?? 0, now);
}

/** Marks the session deleted (hidden at once) and owes the index the removal of its row. */
export function writeDeletion(sql: SqlStorage, now: number): void {
  const record = readRecord(sql);
  if (!record) return;
  updateRecord(sql, { deletedAt: now });
  // The sessions it watched drop its cursor at once (SPEC §23), not at their next notice: those it
  // recorded watching and its children (each watched by its requester from its spawn).
  for (const targetKey of new Set([...watchedTargets(sql), ...childKeys(sql)]))
    addToOutbox(sql, "unwatch", `unwatch:${targetKey}`, {
      targetKey,
      watcherKey: record.sessionKey,
      before: now,
    });
  clearWatchers(sql);
  // A collector child's task that has not reported ends here, so its member frees its slot: owed before
  // the index delete, which wipes the storage only once this handoff is out (src/session/outbox/outbox.ts).
  if (record.spawn?.collect)
    addCollectorResult(
      sql,
      record.spawn,
      record.lastRunId ?? "",
      { status: "killed", error: "session deleted" },
      now,
      { deleting: true },
    );
  // Its own members still queued never start.
  cancelQueuedCollectors(sql, now);
  const version = readRecord(sql)?.version ?? record.version + 1;
  // Same key as the index sync: an undelivered upsert is replaced by the delete.
  addToOutbox(sql, "index_delete", "index", { sessionKey: record.sessionKey, version });
}

/** Imports messages in order, skipping ids already stored. */
export function writeImport(
  sql: SqlStorage,
  record: SessionRecord,
  messages: TranscriptMessage[],
): ImportReceipt {
  const hadMessages = messageCounts(sql).all > 0;
  const appended = appendMessages(sql, messages, record.firstUserText !== undefined);
  if (appended.imported > 0) {
    const newest = Math.min(appended.newestTimestamp ?? record.updatedAt, Date.now());
    updateRecord(sql, {
      // updatedAt is the last activity: the newest message, which for an import may lie in the past.
      updatedAt: hadMessages ? Math.max(record.updatedAt, newest) : newest,
      ...summaryChanges(appended),
    });
    addIndexSync(sql);
  }
  return { imported: appended.imported, skipped: appended.skipped, totalMessages: messageCounts(sql).all };
}

/** Appends a turn's message and adds its run to the run queue. */
export function writeTurn(
  sql: SqlStorage,
  record: SessionRecord,
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
  const appended = appendMessages(sql, [message], record.firstUserText !== undefined);
  // A completion's reply goes to the session's own channel (a thread-bound child's: into its thread); a
  // nested (sub-agent) requester's stays internal.
  const ownChannel =
    request.replyToOwnChannel && !record.spawn
      ? (request.replyToThread ?? announceTarget(record, config))
      : undefined;
  const replyTo = request.replyTo ?? ownChannel;
  insertRun(
    sql,
    { ...request, ...(replyTo ? { replyTo } : {}) },
    message.id,
    request.timeoutMs ?? DEFAULT_RUN_TIMEOUT_MS,
    now,
  );
  if (record.archivedAt !== undefined)
    appendEvent(sql, systemEvent("restored", "new work brought the session back from the archive"), now);
  updateRecord(sql, {
    updatedAt: Math.max(record.updatedAt, now),
    lastRunId: request.runId,
    // New work brings an archived sub-agent session back into listings.
    archivedAt: null,
    archiveAt: null,
    ...summaryChanges(appended),
    ...(request.replyTo
      ? {
          lastChannel: request.replyTo.channel,
          lastTo: request.replyTo.to,
          deliveryContext: chatOf(request.replyTo),
        }
      : {}),
  });
  addToOutbox(sql, "run_index", `run:${request.runId}`, {
    runId: request.runId,
    sessionKey: record.sessionKey,
    createdAt: now,
    ...(record.spawn?.collect ? { spawnerKey: record.spawn.requesterKey } : {}),
  });
  addIndexSync(sql);
}

/** Keeps a yield's message in the transcript as hidden context (SPEC §5.5). */
export function writeYieldNote(
  sql: SqlStorage,
  record: SessionRecord,
  runId: string,
  message: string,
  now: number,
): void {
  appendMessages(sql, [yieldNote(runId, message, now)], record.firstUserText !== undefined);
}

/** A spawned child whose first run never arrived fails this long after its creation. */
export const ORPHAN_CHILD_MS = 60_000;

/** Fails a spawned child that never got its first run (see migration 0007), so it holds no slot. */
export function failIfOrphaned(sql: SqlStorage, record: SessionRecord, now: number): void {
  if (!record.spawn || record.status !== undefined || record.createdAt + ORPHAN_CHILD_MS > now) return;
  if (hasAnyRun(sql)) return;
  updateRecord(sql, { status: "failed", endedAt: now, abortedLastRun: 1 });
  addIndexSync(sql);
}

/** Archives an idle sub-agent session once its `archiveAfterMinutes` have passed (SPEC §5.4). */
export function archiveIfDue(sql: SqlStorage, record: SessionRecord, now: number): void {
  if (
    record.archiveAt === undefined ||
    record.archiveAt > now ||
    hasQueuedRuns(sql) ||
    runningRuns(sql).length > 0
  )
    return;
  updateRecord(sql, { archivedAt: now, archiveAt: null });
  appendEvent(sql, systemEvent("archived", "archived once idle"), now);
  addIndexSync(sql);
}

/**
 * A child this session spawned, told by the child's creation: one `child` row with its spawn's run, and
 * the `child_spawned` event (SPEC §13) from the same write, once per spawn. A session never written keeps
 * the row (its children exist either way) but has no log to show the event in.
 */
export function writeChild(
  sql: SqlStorage,
  child: { childSessionKey: string; runId?: string },
  now: number,
): boolean {
  const noted = noteChild(sql, child.childSessionKey, child.runId, now);
  // appendEvent writes nothing in a session never written (or deleted): it has no log to show it in.
  if (!noted || child.runId === undefined) return noted;
  appendEvent(
    sql,
    systemEvent("child_spawned", `spawned ${child.childSessionKey}`, {
      runId: child.runId,
      data: { childSessionKey: child.childSessionKey, runId: child.runId },
    }),
    now,
  );
  return true;
}
