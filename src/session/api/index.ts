/**
 * The session object's one public face: the RPC interface it implements and the types that cross it.
 * Code outside src/session/ imports only this module and the stub factory (client.ts); the run and turn
 * types live in api-runs.ts and api-turns.ts, re-exported here.
 */
import type { PreparedAttachment } from "../../subagents/attachments";
import type { StructuredAnswer } from "../../subagents/structured-result";
import type { TranscriptMessage } from "../../transcript/message";
import {
  type DeliveryContext,
  deliveryContextSchema,
  type RecordChanges,
  type ReplyTarget,
  replyTargetSchema,
  type SessionRecord,
  type SpawnInfo,
} from "../record/record";
import type { SessionRow } from "../record/row";
import type { AdmittedCollector, CollectorCaps, CollectorResult, CollectorSnapshot } from "./api-collectors";
import type { DeliveryRecord, DeliveryReport, DeliveryReportAnswer } from "./api-deliveries";
import type { ErasureAnswer, ErasurePlan, ErasureRequest } from "./api-erasure";
import type { RunProgressPost, StateChanges } from "./api-events";
import type { SessionInspection } from "./api-inspect";
import type {
  DeferredResult,
  ExactPage,
  HistoryPage,
  HistoryRequest,
  RunProgress,
  RunRecord,
  Viewer,
} from "./api-runs";
import type { AcceptedTurn, SendRecordRequest, SentRecord, SteerMessage, TurnRequest } from "./api-turns";
import type { PendingInputs } from "./pending-inputs";

export { type IndexRow, LIST_STATE } from "../record/index-row";
export { SESSION_ROW_COLUMNS, sessionRowSchema, toSessionRow } from "../record/row";
export * from "./api-collectors";
export * from "./api-deliveries";
export * from "./api-erasure";
export * from "./api-events";
export * from "./api-inspect";
export * from "./api-runs";
export * from "./api-turns";
export { retryDelayMs } from "./delivery-schedule";
export { NO_PENDING_INPUTS } from "./pending-inputs";
export type { DeliveryContext, ReplyTarget, SessionRecord, SessionRow, SpawnInfo };
export { deliveryContextSchema, replyTargetSchema };

/** How a domain call can fail; routes map each code to an HTTP status (errors.ts), tools to a result. */
export type DomainErrorCode = "not_found" | "conflict" | "forbidden";

/** A domain outcome: the value, or why not (never thrown across the RPC boundary). */
export type Result<T> = { ok: true; value: T } | { ok: false; code: DomainErrorCode; message: string };

export const notFound = <T>(): Result<T> => ({ ok: false, code: "not_found", message: "session not found" });

export interface CreateSessionInit {
  sessionKey: string;
  agentId: string;
  label?: string;
  displayName?: string;
  subject?: string;
  channel?: string;
  chatType?: "direct" | "group" | "channel";
  deliveryContext?: DeliveryContext;
  spawnedBy?: string;
  /** The session id of the requester that spawned it (SPEC §23): the child is that session's. */
  spawnedById?: string;
  parentSessionKey?: string;
  spawnDepth?: number;
  spawn?: SpawnInfo;
  lineage?: string[];
  modelOverride?: string;
  thinkingLevel?: string;
  /** Files given to sessions_spawn, stored with the child for its runtime. */
  attachments?: PreparedAttachment[];
  /**
   * Its key was minted for it just now (a random id): no earlier session under it can have been
   * deleted, so its creation reads no generation floor from the index (one D1 round trip fewer).
   */
  newKey?: true;
}

export type SessionPatch = Pick<
  RecordChanges,
  "label" | "displayName" | "sendPolicy" | "modelOverride" | "thinkingLevel"
> & {
  pinned?: boolean;
  /** true archives, false lists again; `after_run` archives once the runs in flight have ended. */
  archived?: boolean | "after_run";
};

/** A lifecycle change applies only to this generation of the session (the sessionId callers saw). */
export interface SessionGuard {
  expectedSessionId?: string;
}

export interface RetireRequest {
  action: "archive" | "delete";
  idleBefore: number;
  /** The sessionId the pass read in the index: a newer session under the key is left alone. */
  expectedSessionId: string;
}

export type RetireAnswer =
  | { retired: true }
  | { retired: false; reason: "active" | "run_in_flight" | "archived" };

export interface ImportReceipt {
  imported: number;
  skipped: number;
  totalMessages: number;
}

/**
 * An inbound channel message (SPEC §8) as the Worker verified and parsed it: the object does the rest,
 * in one transaction (acceptInbound).
 */
export interface InboundChannelMessage {
  /** The session the message belongs to, created with it when there is none. */
  init: CreateSessionInit & {
    channel: string;
    chatType: NonNullable<CreateSessionInit["chatType"]>;
    /** The chat, and for the run's reply the message it answers (the session keeps only the chat). */
    deliveryContext: ReplyTarget;
  };
  /** The channel's own message id: a redelivery is one message and one run. */
  channelMessageId: string;
  text: string;
  /** The sender's id on the channel: the peer of a direct chat or a configured owner may send commands. */
  senderId: string;
  /** The run it starts, if it starts one (stable per chat and message id). */
  runId: string;
  /**
   * A group message that does not address the bot (SPEC §21 groups): recorded as context for the next
   * addressed turn, with no run; only the newest `historyLimit` such messages are kept.
   */
  context?: { historyLimit: number };
  /** The sender as the platform names them, kept in the message's provenance (who said what in a group). */
  senderName?: string;
  /**
   * What the message does while the session is busy (SPEC §21, the channel's `busy`; `queue` when absent)
   * and, for `collect`, how long after the latest message the one run for them all starts.
   */
  busy?: { mode: "queue" | "steer" | "interrupt" | "collect"; debounceMs: number };
}

/** What became of an inbound message: a `/send` command applied, a run queued, or blocked by the policy. */
export type InboundAnswer =
  | { status: "command"; sendPolicy: "allow" | "deny" | "inherit"; duplicate: boolean }
  | { status: "accepted"; runId: string; duplicate: boolean }
  | { status: "context"; duplicate: boolean }
  | { status: "blocked" };

/** What session_status reads from the object: the row, and whether to count children in the index. */
export interface StatusDescription {
  row: SessionRow;
  mayHaveChildren: boolean;
  /** The session's model override: the card tells an override from a fallback that answered. */
  modelOverride?: string;
}

/**
 * What `POST /v1/sessions/{key}/compact` answers (SPEC §20): whether the session was compacted, and if
 * not, why (nothing older than the newest turn, or the model failed: the session is then as it was).
 */
export interface CompactionAnswer {
  compacted: boolean;
  reason?: string;
  operationId?: string;
  /** Messages the new summary covers now, and the newest kept verbatim. */
  summarizedMessages?: number;
  keptMessages?: number;
  /** The session's compactions so far, this one included. */
  compactionCount: number;
}

/** The session object's RPC methods. */
export interface SessionApi {
  /** Creates the session; a live session under the same key is a conflict. */
  create(init: CreateSessionInit): Promise<Result<SessionRow>>;
  /**
   * Creates a sub-agent session with its forked transcript and its first turn, in one transaction, so a
   * child never exists without its run. If it exists already (a repeated spawn), only the turn is added
   * (a no-op when it is there).
   */
  createWithTurn(
    init: CreateSessionInit,
    turn: TurnRequest,
    fork?: TranscriptMessage[],
  ): Promise<Result<AcceptedTurn>>;
  /** The session, created first if it does not exist (a sessions_send to an agent's main session). */
  ensure(init: CreateSessionInit): Promise<Result<SessionRow>>;
  /**
   * The session as callers see it. With a viewer, refused ("forbidden") unless the viewer may see its
   * status, checked against the session's own record (no index lookup first).
   */
  describe(viewer?: Viewer): Promise<Result<SessionRow>>;
  /**
   * `describe`, and whether the session may have children (false only when it is known never to have
   * spawned: session_status then asks the index nothing).
   */
  describeForStatus(viewer?: Viewer): Promise<Result<StatusDescription>>;
  /**
   * A session this one spawned was created (told by the child's outbox; idempotent), with the run it
   * was spawned with: one `child` row and its `child_spawned` event, in one write; `recorded` when news.
   */
  /** Notes a child; answers this session's id (when it exists), which the child is bound to (SPEC §23). */
  childCreated(
    childKey: string,
    runId?: string,
    parentSessionId?: string,
  ): Promise<Result<{ recorded: boolean; sessionId?: string }>>;
  /** Changes operator-settable fields; null clears one. A guard's other sessionId is a conflict. */
  patch(changes: SessionPatch, guard?: SessionGuard): Promise<Result<SessionRow>>;
  /** Deletes the session: hidden at once, storage wiped once its index row is gone. */
  remove(guard?: SessionGuard): Promise<Result<{ deleted: true }>>;
  /**
   * The maintenance pass's archive or delete of an idle session (SPEC §23): done only if the session
   * is still idle since before `idleBefore` (ms) and has no run queued or in flight, checked here, in
   * the same call; else `{ retired: false, reason }` and nothing changes.
   */
  retire(request: RetireRequest): Promise<Result<RetireAnswer>>;
  /**
   * Compacts the session now (SPEC §20): even one that fits, keeping the newest turns verbatim; the
   * transcript keeps every message. A model that fails leaves the session as it was.
   */
  compact(): Promise<Result<CompactionAnswer>>;
  /** Imports messages as they are, in order; ids already stored are skipped (idempotent). */
  importMessages(messages: TranscriptMessage[]): Promise<Result<ImportReceipt>>;
  /**
   * A page of safe history (SPEC §5.2); with a viewer, after SPEC §4's visibility check against this
   * session's own record (a reference that can only be this key needs no index lookup first).
   */
  history(request: HistoryRequest, viewer?: Viewer): Promise<Result<SessionHistory>>;
  /** The last `count` non-tool messages, made safe, for list rows. */
  recentMessages(count: number): Promise<TranscriptMessage[]>;
  /** A chunk of the exact JSONL export. */
  exportChunk(afterSeq: number, limit: number): Promise<Result<{ lines: string[]; lastSeq: number }>>;
  /** The newest `limit` stored messages before `beforeSeq` (all: undefined), as stored: the exact view. */
  exactPage(beforeSeq: number | undefined, limit: number): Promise<Result<ExactPage>>;
  /** How many messages came after `messageId`, as a history page counts them: the offset of the page ending at it. */
  messageOffset(messageId: string, includeTools: boolean): Promise<Result<{ newer: number }>>;
  /** Appends a turn's message and adds its run to the run queue; a repeat (runId or dedupeKey) writes nothing. */
  enqueueTurn(request: TurnRequest): Promise<Result<AcceptedTurn>>;
  /** `enqueueTurn`, then `waitForRun` on it, in one call. */
  enqueueTurnAndWait(request: TurnRequest, timeoutMs: number): Promise<Result<RunRecord>>;
  /** One run of this session. */
  getRun(runId: string): Promise<Result<RunRecord>>;
  /** Waits up to `timeoutMs` for a run to end; answers with the run either way. */
  waitForRun(runId: string, timeoutMs: number): Promise<Result<RunRecord>>;
  /**
   * A run's progress (SPEC §15), answered once it is terminal (not running, not waiting) or after
   * `timeoutMs` (0: at once); woken by this session's run ends, never by polling.
   */
  waitForProgress(runId: string, timeoutMs: number): Promise<Result<RunProgress>>;
  /** The result of a deferred (webhook 202) run, posted later by the agent. */
  completeDeferredRun(runId: string, result: DeferredResult): Promise<Result<RunRecord>>;
  /**
   * An inbound channel message, in one call and one transaction: creates the session if there is none,
   * applies an owner's `/send` command, or records the message and queues its turn (blocked: only
   * recorded) as the send policy decides.
   */
  acceptInbound(message: InboundChannelMessage): Promise<Result<InboundAnswer>>;
  /** Stops this session's runs (subagents kill); `cascade` when an ancestor was killed. */
  kill(options?: { cascade?: boolean }): Promise<Result<{ stopped: number }>>;
  /** Restarts this session's work with a new message (subagents steer), rate-limited per controller. */
  steer(
    requesterKey: string,
    runId: string,
    text: string,
  ): Promise<Result<{ runId: string; rateLimited: boolean }>>;
  /** Ends the current run at its own request (sessions_yield); false when that run is not the current one. */
  yieldRun(runId: string, message: string): Promise<Result<{ yielded: boolean }>>;
  /**
   * Records a handoff in this (sending) session, in one transaction: a repeat of its idempotency key
   * answers the first handoff (`duplicate`); a turn for the Queue is also owed through the outbox, a
   * few seconds ahead, so it is durable here before anything else, and `sendQueued` settles that.
   * Needs no session record: a requester that was never written can send.
   */
  recordSend(send: SendRecordRequest): Promise<Result<SentRecord & { duplicate: boolean }>>;
  /** The turn of a recorded send is on the Queue: the outbox owes it no more. */
  sendQueued(runId: string): Promise<Result<{ settled: boolean }>>;
  /** The turn of a recorded send (the Queue's consumer reads a large one from here). */
  sentTurn(runId: string): Promise<Result<TurnRequest>>;
  /**
   * Steering into the active run: appends the message and hands it to the run in flight, which goes on
   * (unlike `steer`, which restarts). Its runId; `conflict` when no run is in flight.
   */
  steerActiveRun(message: SteerMessage): Promise<Result<{ runId: string }>>;
  /** One of the files this session was spawned with. */
  attachment(name: string): Promise<Result<{ bytes: ArrayBuffer; mimeType?: string }>>;
  /**
   * The events after `since` (SPEC §13 `changesSince`); the caller checks `since` against stateVersion.
   * Asked by a watcher (`watcherKey`), it acknowledges that watcher's notice up to `since`.
   */
  changes(since: number, watcherKey?: string): Promise<Result<StateChanges>>;
  /** A webhook agent's progress on its running run, added to the run's stream; `conflict` once it ended. */
  postRunProgress(runId: string, progress: RunProgressPost): Promise<Result<{ accepted: true }>>;
  /**
   * Registers `watcherKey` as a watcher of this session (SPEC §13 watch), its cursor at the current
   * stateVersion; a registered watcher keeps its cursor and any pending notice. False for this session itself.
   */
  watch(watcherKey: string): Promise<Result<{ watched: boolean }>>;
  /**
   * A watched session's coalesced notice for this (watcher) session: appended once as a hidden `system`
   * message, with a wake turn after the coalescing window unless this is a sub-agent. An archived
   * session takes no notice; a repeat of one appended is a `duplicate`.
   */
  watchNotice(notice: {
    watcherKey: string;
    targetKey: string;
    n: number;
  }): Promise<Result<{ taken: "appended" | "duplicate" | "archived" }>>;
  /** One of this session's delivery records (SPEC §16). */
  delivery(deliveryId: string): Promise<Result<DeliveryRecord>>;
  /** An attempt of the Queue's consumer at a channel post: the answer says whether and when to retry. */
  reportDelivery(deliveryId: string, report: DeliveryReport): Promise<Result<DeliveryReportAnswer>>;
  /** A new attempt series for a suspended, failed or dismissed record (`conflict` otherwise). */
  retryDelivery(deliveryId: string): Promise<Result<DeliveryRecord>>;
  /** Leaves a pending, failed or suspended record undelivered on purpose (`conflict` otherwise). */
  dismissDelivery(deliveryId: string): Promise<Result<DeliveryRecord>>;
  /**
   * A `structured_output` call of this collector child's running run (SPEC §15): judged against the
   * run's earlier calls and recorded before it answers. `forbidden` without an outputSchema, `conflict`
   * when the run is not running.
   */
  recordStructuredOutput(runId: string, result: unknown): Promise<Result<StructuredAnswer>>;
  /**
   * Admits a collector this (requester) session spawns, in one transaction under its group's caps
   * (`forbidden` naming the cap reached); it starts now or, beyond maxConcurrent, once a slot is free
   * (FIFO). A repeated runId answers as admitted the first time. `not_found` for a requester not live,
   * `conflict` once its spawning run has ended or is being stopped.
   */
  admitCollector(admission: CollectorAdmission): Promise<Result<AdmittedCollector>>;
  /** A collector child's result, taken once (deduplicated by runId); frees its slot. */
  collectorResult(result: CollectorResult): Promise<Result<{ taken: boolean }>>;
  /**
   * The requested collector runs of this session, answered once any of them has ended or after
   * `timeoutMs` (0: at once); woken by a result's arrival, never by polling.
   */
  waitCollectors(runIds: string[], timeoutMs: number): Promise<Result<CollectorSnapshot>>;
  /** Ends queued collector runs before they start (all, or those of `runIds`): the runIds ended. */
  cancelCollectors(runIds?: string[]): Promise<Result<{ cancelled: string[] }>>;
  /** Releases this collector child's held run (its member has a running slot): it runs now. */
  releaseRun(runId: string): Promise<Result<{ released: boolean }>>;
  /** The session's recent runs, watchers and events with its stateVersion, for the operator console. */
  inspect(): Promise<Result<SessionInspection>>;
  /**
   * Erasure (SPEC §23), read before this session is deleted: who may hold copies of its text and its
   * children. Answered even for a session with no live record (its storage may still hold them).
   */
  erasurePlan(sessionKey: string): Promise<Result<ErasurePlan>>;
  /** The watcher's side of a watch (SPEC §13): it now watches `targetKey`, so its deletion can unwatch. */
  noteWatching(targetKey: string): Promise<Result<{ noted: true }>>;
  /**
   * A watcher deleted (SPEC §23): its cursor registered here before `before` and the notices owed it go
   * at once. Not found for an object holding no session (nothing to drop).
   */
  unwatch(watcherKey: string, before: number): Promise<Result<{ removed: boolean }>>;
  /**
   * Erasure of another session's (or a sender's) text held here, in one transaction: its messages
   * replaced by `[erased]`, the exchanges' quotes of it, `sent` turns to it, its watchers and their
   * notices; an `erased` event when anything changed. Repeating it changes nothing more.
   */
  eraseCopies(request: ErasureRequest): Promise<Result<ErasureAnswer>>;
}

/** A collector spawn for its requester to admit. */
/** A history page with the session's pending inputs (OpenClaw's `pendingInputs`), as the object reads them. */
export type SessionHistory = HistoryPage & { pendingInputs: PendingInputs };

export interface CollectorAdmission {
  runId: string;
  /** The requester's run spawning it, if any: admitted only while that run is queued or running. */
  requesterRunId?: string;
  /**
   * A requester outside a run (an agent token, the operator) as the session it acts as: created if it has
   * no record (SPEC §12: the requester's own session always exists), as a plain spawn needs none.
   */
  requester?: { sessionKey: string; agentId: string };
  groupId: string;
  childKey: string;
  label?: string;
  caps: CollectorCaps;
}
