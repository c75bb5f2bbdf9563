import { DurableObject } from "cloudflare:workers";
import { readStateFloor } from "../index-db/generations";
import { indexShards, keyShard } from "../index-db/shards";
import { checkSessionVisible, type VisibilityAction } from "../policy/visibility";
import { hasSchema } from "../storage/migrations";
import type { StructuredAnswer } from "../subagents/structured-result";
import type { TranscriptMessage } from "../transcript/message";
import { Alarm } from "./alarm";
import {
  type AcceptedTurn,
  type AdmittedCollector,
  type CollectorAdmission,
  type CollectorResult,
  type CollectorSnapshot,
  type CompactionAnswer,
  type CreateSessionInit,
  type DeferredResult,
  type ErasureAnswer,
  type ErasurePlan,
  type ErasureRequest,
  type ExactPage,
  type HistoryRequest,
  type ImportReceipt,
  type InboundAnswer,
  type InboundChannelMessage,
  notFound,
  type Result,
  type RetireAnswer,
  type RetireRequest,
  type RunProgress,
  type RunRecord,
  type SendRecordRequest,
  type SentRecord,
  type SessionApi,
  type SessionGuard,
  type SessionHistory,
  type SessionPatch,
  type StatusDescription,
  type SteerMessage,
  type TurnRequest,
  type Viewer,
} from "./api";
import type { DeliveryRecord, DeliveryReport, DeliveryReportAnswer } from "./api/api-deliveries";
import type { RunProgressPost, StateChanges } from "./api/api-events";
import type { SessionInspection } from "./api/api-inspect";
import { readPendingInputs } from "./api/pending-inputs";
import { Collectors } from "./collectors/collectors";
import { sessionConfig } from "./config";
import { Deliveries } from "./ledger/deliveries";
import { inspectSession } from "./live/inspect";
import { Live } from "./live/live";
import { type WatchNotice, wakeIfDue } from "./live/watch-notice";
import { Outbox } from "./outbox/outbox";
import { forgetRecord, liveRecord, readRecord, type SessionRecord, seedTombstone } from "./record/record";
import { type SessionRow, sessionRowOf } from "./record/row";
import { RunWaiters } from "./run-waiters";
import { compactNow } from "./runs/compact-now";
import { retainSession } from "./runs/retention-pass";
import { Runs } from "./runs/runs";
import { recordSend } from "./runs/sends";
import { Turns } from "./runs/turns";
import { applySessionMigrations } from "./schema/migrations";
import { mayHaveChildren } from "./store/children";
import { cancelQueuedCollectors, pruneCollectors } from "./store/collector-store";
import { holdsNothing, pruneSent } from "./store/retention";
import { findRun } from "./store/run-store";
import { readSentTurn, sentTargets, settleQueuedSend } from "./store/sent";
import { writeStructuredOutput } from "./store/structured-output";
import { dropWatcher, noteWatching } from "./store/watchers";
import { readAttachment } from "./transcript/attachments";
import {
  countNewer,
  readExactPage,
  readExportChunk,
  readHistoryPage,
  readRecentMessages,
} from "./transcript/transcript";
import { readErasurePlan, writeErasure } from "./writes/erasure";
import { guardedRecord, retireRefusal, writePatch } from "./writes/lifecycle";
import { writeSteering } from "./writes/steering";
import {
  archiveIfDue,
  failIfOrphaned,
  writeChild,
  writeCreation,
  writeDeletion,
  writeImport,
  writeYieldNote,
} from "./writes/writes";

/**
 * One session: its record, transcript (one row per message), runs and outbox, in SQLite. An
 * orchestrator: each RPC method writes in one transaction and hands what it owes to the outbox; the
 * parts (Turns, Runs, RunWaiters, Outbox, Alarm) never call back into it.
 */
export class SessionObject extends DurableObject<Env> implements SessionApi {
  readonly #sql: SqlStorage;
  readonly #alarm: Alarm;
  readonly #outbox: Outbox;
  readonly #runs: Runs;
  readonly #waiters = new RunWaiters();
  readonly #turns: Turns;
  readonly #live: Live;
  readonly #deliveries: Deliveries;
  readonly #collectors: Collectors;
  /**
   * No schema in storage: an object never used, or wiped after its session's deletion (SPEC §23). Reads
   * of a session answer as for one that does not exist, writing nothing; the first write creates the
   * schema (`#use`), so probing a missing or deleted key leaves no bytes behind.
   */
  #bare = false;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#sql = ctx.storage.sql;
    this.#alarm = new Alarm(ctx.storage);
    this.#outbox = new Outbox(
      ctx.storage,
      () => this.env,
      this.#alarm,
      (runId) => this.#collectors.ended([runId]),
      // A pass that removed the session (a cleanup child after its completion) stops its runs.
      () => this.#runs.abortAll("killed"),
      () => {
        this.#bare = true;
      },
    );
    this.#runs = new Runs(ctx.storage, env, this.#outbox, this.#alarm, this.#waiters);
    this.#turns = new Turns(ctx.storage, env, this.#runs, this.#outbox, this.#waiters);
    this.#live = new Live(ctx.storage, env, this.#outbox);
    this.#deliveries = new Deliveries(ctx.storage, this.#outbox);
    this.#collectors = new Collectors(
      this.#sql,
      (write) => this.#write(write),
      (runId) => this.#runs.stopping(runId),
    );
    void ctx.blockConcurrencyWhile(async () => {
      this.#bare = !hasSchema(this.#sql);
      this.#alarm.storageWiped(this.#bare);
      // A migration may owe work (a transcript older than the search index): the alarm takes it up.
      if (!this.#bare && applySessionMigrations(this.#sql) > 0) await this.#alarm.rearm();
    });
  }

  /**
   * Before a session is created in an object holding no record (new, or wiped after a deletion): the
   * key's last stateVersion, which a deletion keeps in D1, seeds it, so its event log goes on counting
   * from there (SPEC §23 "Generations"). One D1 read, only for an object that has never held this key's
   * record since its storage was last wiped, and a key not minted just now.
   */
  async #continueGeneration({
    sessionKey,
    newKey,
  }: Pick<CreateSessionInit, "sessionKey" | "newKey">): Promise<void> {
    this.#use();
    if (newKey || readRecord(this.#sql) !== undefined) return;
    const floor = await readStateFloor(keyShard(indexShards(this.env), sessionKey), sessionKey).catch(
      // D1 out of reach: creation does not wait on it (index writes are retried; this cannot be), so the
      // log starts from the time in ms instead, above any count of events a deleted session could have had.
      () => Date.now(),
    );
    if (floor !== undefined && floor > 0)
      this.ctx.storage.transactionSync(() => seedTombstone(this.#sql, sessionKey, floor));
  }

  /** The schema, created from the squashed script the first time this object is used (or after a wipe). */
  #use(): void {
    if (!this.#bare) return;
    applySessionMigrations(this.#sql);
    this.#bare = false;
    this.#alarm.storageWiped(false);
  }

  /** Nothing of this object is kept: no schema, no alarm, until it is next used (`#use`). */
  async #wipeStorage(): Promise<void> {
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    forgetRecord(this.#sql);
    this.#alarm.storageWiped(true);
    this.#bare = true;
  }

  /** Writes in one transaction, then delivers what the write owes others. */
  async #write<T>(write: () => T): Promise<T> {
    const value = this.ctx.storage.transactionSync(write);
    await this.#outbox.flush();
    return value;
  }

  async create(init: CreateSessionInit): Promise<Result<SessionRow>> {
    await this.#continueGeneration(init);
    if (liveRecord(this.#sql))
      return { ok: false, code: "conflict", message: `session ${init.sessionKey} already exists` };
    await this.#write(() => writeCreation(this.#sql, init, Date.now()));
    return this.describe();
  }

  async createWithTurn(
    init: CreateSessionInit,
    turn: TurnRequest,
    fork: TranscriptMessage[] = [],
  ): Promise<Result<AcceptedTurn>> {
    await this.#continueGeneration(init);
    return this.#turns.createWithTurn(init, turn, fork);
  }

  async ensure(init: CreateSessionInit): Promise<Result<SessionRow>> {
    this.#use();
    return liveRecord(this.#sql) ? this.describe() : this.create(init);
  }

  async describe(viewer?: Viewer): Promise<Result<SessionRow>> {
    if (this.#bare) return notFound();
    const record = liveRecord(this.#sql);
    if (!record) return notFound();
    return (
      refusedTo(viewer, record, "status") ?? {
        ok: true,
        value: sessionRowOf(record, sessionConfig(this.env)),
      }
    );
  }

  async describeForStatus(viewer?: Viewer): Promise<Result<StatusDescription>> {
    const described = await this.describe(viewer);
    if (!described.ok) return described;
    const modelOverride = liveRecord(this.#sql)?.modelOverride;
    return {
      ok: true,
      value: {
        row: described.value,
        mayHaveChildren: mayHaveChildren(this.#sql),
        ...(modelOverride !== undefined ? { modelOverride } : {}),
      },
    };
  }

  async childCreated(
    childKey: string,
    runId?: string,
    parentSessionId?: string,
  ): Promise<Result<{ recorded: boolean; sessionId?: string }>> {
    // A child spawned for an earlier session under this key is not this one's (SPEC §23 generations).
    const current = this.#bare ? undefined : liveRecord(this.#sql)?.sessionId;
    if (parentSessionId !== undefined && current !== parentSessionId)
      return { ok: true, value: { recorded: false } };
    this.#use();
    const child = { childSessionKey: childKey, ...(runId ? { runId } : {}) };
    const recorded = await this.#write(() => writeChild(this.#sql, child, Date.now()));
    const sessionId = liveRecord(this.#sql)?.sessionId;
    return { ok: true, value: { recorded, ...(sessionId ? { sessionId } : {}) } };
  }

  async patch(changes: SessionPatch, guard?: SessionGuard): Promise<Result<SessionRow>> {
    if (this.#bare) return notFound();
    const record = guardedRecord(this.#sql, guard);
    if (!record.ok) return record;
    await this.#write(() => writePatch(this.#sql, changes, Date.now()));
    return this.describe();
  }

  async remove(guard?: SessionGuard): Promise<Result<{ deleted: true }>> {
    if (this.#bare) return notFound();
    // A key never created as a session may still hold what it sent as a requester (SPEC §23): its
    // storage goes with a deletion of the key; "deleted" when it held sent records, not found otherwise.
    if (readRecord(this.#sql) === undefined && guard === undefined) {
      const held = sentTargets(this.#sql).length > 0;
      await this.#wipeStorage();
      return held ? { ok: true, value: { deleted: true } } : notFound();
    }
    const record = guardedRecord(this.#sql, guard);
    if (!record.ok) return record;
    this.ctx.storage.transactionSync(() => writeDeletion(this.#sql, Date.now()));
    this.#runs.abortAll("killed");
    this.#live.closeStreams();
    await this.#outbox.flush();
    return { ok: true, value: { deleted: true } };
  }

  async retire(request: RetireRequest): Promise<Result<RetireAnswer>> {
    const record = guardedRecord(this.#sql, { expectedSessionId: request.expectedSessionId });
    if (!record.ok) return record;
    const refused = retireRefusal(this.#sql, record.value, request);
    if (refused) return { ok: true, value: { retired: false, reason: refused } };
    if (request.action === "archive")
      await this.#write(() => writePatch(this.#sql, { archived: true }, Date.now()));
    else if (!(await this.remove({ expectedSessionId: request.expectedSessionId })).ok)
      return { ok: false, code: "conflict", message: "the session changed before it was deleted" };
    return { ok: true, value: { retired: true } };
  }

  async compact(): Promise<Result<CompactionAnswer>> {
    if (this.#bare) return notFound();
    const answer = await compactNow(this.env, this.ctx.storage, sessionConfig(this.env));
    // The compacted event owes the index the session's new stateVersion.
    await this.#outbox.flush();
    return answer;
  }

  async importMessages(messages: TranscriptMessage[]): Promise<Result<ImportReceipt>> {
    if (this.#bare) return notFound();
    const record = liveRecord(this.#sql);
    if (!record) return notFound();
    return { ok: true, value: await this.#write(() => writeImport(this.#sql, record, messages)) };
  }

  async history(request: HistoryRequest, viewer?: Viewer): Promise<Result<SessionHistory>> {
    if (this.#bare) return notFound();
    const record = liveRecord(this.#sql);
    if (!record) return notFound();
    return (
      refusedTo(viewer, record, "history") ?? {
        ok: true,
        value: { ...readHistoryPage(this.#sql, request), pendingInputs: readPendingInputs(this.#sql) },
      }
    );
  }

  async recentMessages(count: number): Promise<TranscriptMessage[]> {
    if (this.#bare) return [];
    return liveRecord(this.#sql) ? readRecentMessages(this.#sql, count) : [];
  }

  async exportChunk(afterSeq: number, limit: number): Promise<Result<{ lines: string[]; lastSeq: number }>> {
    if (this.#bare) return notFound();
    if (!liveRecord(this.#sql)) return notFound();
    return { ok: true, value: readExportChunk(this.#sql, afterSeq, limit) };
  }

  async exactPage(beforeSeq: number | undefined, limit: number): Promise<Result<ExactPage>> {
    if (this.#bare) return notFound();
    if (!liveRecord(this.#sql)) return notFound();
    return { ok: true, value: readExactPage(this.#sql, beforeSeq, limit) };
  }

  async messageOffset(messageId: string, includeTools: boolean): Promise<Result<{ newer: number }>> {
    if (this.#bare) return notFound();
    const newer = liveRecord(this.#sql) ? countNewer(this.#sql, messageId, includeTools) : undefined;
    return newer === undefined ? notFound() : { ok: true, value: { newer } };
  }

  async acceptInbound(message: InboundChannelMessage): Promise<Result<InboundAnswer>> {
    await this.#continueGeneration(message.init);
    return this.#turns.acceptInbound(message);
  }

  async enqueueTurn(request: TurnRequest): Promise<Result<AcceptedTurn>> {
    this.#use();
    return this.#turns.enqueue(request);
  }

  async enqueueTurnAndWait(request: TurnRequest, timeoutMs: number): Promise<Result<RunRecord>> {
    this.#use();
    return this.#turns.enqueueAndWait(request, timeoutMs);
  }

  async recordSend(send: SendRecordRequest): Promise<Result<SentRecord & { duplicate: boolean }>> {
    this.#use();
    return recordSend(this.ctx.storage, this.#alarm, send);
  }

  async sendQueued(runId: string): Promise<Result<{ settled: boolean }>> {
    this.#use();
    const settled = this.ctx.storage.transactionSync(() => settleQueuedSend(this.#sql, runId));
    return { ok: true, value: { settled } };
  }

  async sentTurn(runId: string): Promise<Result<TurnRequest>> {
    if (this.#bare) return notFound();
    return readSentTurn(this.#sql, runId);
  }

  async attachment(name: string): Promise<Result<{ bytes: ArrayBuffer; mimeType?: string }>> {
    if (this.#bare) return notFound();
    return liveRecord(this.#sql) ? readAttachment(this.#sql, name) : notFound();
  }

  /** A run killed with its ancestor (`cascade`) ends without a completion; otherwise it reports. */
  async kill(options: { cascade?: boolean } = {}): Promise<Result<{ stopped: number }>> {
    if (this.#bare) return notFound();
    if (!liveRecord(this.#sql)) return notFound();
    // Its collectors still queued never start: they are work of the runs stopped here. One synchronous
    // step, so no run can admit a member between the cancel and the stop; a parked agents_wait then
    // wakes to see them ended.
    const { stopped, cancelled } = this.ctx.storage.transactionSync(() => ({
      cancelled: cancelQueuedCollectors(this.#sql, Date.now()),
      stopped: this.#runs.stopRuns(options.cascade ? "cascade" : "killed"),
    }));
    await this.#outbox.flush();
    this.#collectors.ended(cancelled);
    return { ok: true, value: { stopped } };
  }

  async steer(
    requesterKey: string,
    runId: string,
    text: string,
  ): Promise<Result<{ runId: string; rateLimited: boolean }>> {
    this.#use();
    return this.#turns.restart(requesterKey, runId, text);
  }

  /** Steering into the active run: the run goes on and takes the message at its next step. */
  async steerActiveRun(message: SteerMessage): Promise<Result<{ runId: string }>> {
    if (this.#bare) return notFound();
    const record = liveRecord(this.#sql);
    if (!record) return notFound();
    const config = sessionConfig(this.env);
    const runId = await this.#write(() => writeSteering(this.#sql, record, config, message, Date.now()));
    return runId
      ? { ok: true, value: { runId } }
      : { ok: false, code: "conflict", message: "no run in flight to steer into" };
  }

  /** The yield's message stays as hidden context; the next inbound event starts a fresh turn. */
  async yieldRun(runId: string, message: string): Promise<Result<{ yielded: boolean }>> {
    if (this.#bare) return notFound();
    const record = liveRecord(this.#sql);
    if (!record) return notFound();
    const run = findRun(this.#sql, runId);
    if (run?.status !== "running" || !this.#runs.yieldRun(run))
      return { ok: true, value: { yielded: false } };
    // A deferred run ended just now: its follow-ups go out, and the next queued run may start.
    await this.#write(() => writeYieldNote(this.#sql, record, runId, message, Date.now()));
    return { ok: true, value: { yielded: true } };
  }

  async changes(since: number, watcherKey?: string): Promise<Result<StateChanges>> {
    if (this.#bare) return notFound();
    return this.#live.changes(since, watcherKey);
  }

  async watch(watcherKey: string): Promise<Result<{ watched: boolean }>> {
    this.#use();
    return this.#live.watch(watcherKey);
  }

  async watchNotice(notice: WatchNotice): Promise<Result<{ taken: "appended" | "duplicate" | "archived" }>> {
    this.#use();
    return this.#live.watchNotice(notice);
  }

  async postRunProgress(runId: string, progress: RunProgressPost): Promise<Result<{ accepted: true }>> {
    this.#use();
    return this.#live.postRunProgress(runId, progress);
  }

  async delivery(deliveryId: string): Promise<Result<DeliveryRecord>> {
    if (this.#bare) return notFound();
    return this.#deliveries.read(deliveryId);
  }

  async reportDelivery(deliveryId: string, report: DeliveryReport): Promise<Result<DeliveryReportAnswer>> {
    this.#use();
    return this.#deliveries.report(deliveryId, report);
  }

  async retryDelivery(deliveryId: string): Promise<Result<DeliveryRecord>> {
    this.#use();
    return this.#deliveries.retry(deliveryId);
  }

  async dismissDelivery(deliveryId: string): Promise<Result<DeliveryRecord>> {
    this.#use();
    return this.#deliveries.dismiss(deliveryId);
  }

  async recordStructuredOutput(runId: string, result: unknown): Promise<Result<StructuredAnswer>> {
    this.#use();
    return this.ctx.storage.transactionSync(() => writeStructuredOutput(this.#sql, runId, result));
  }

  async admitCollector(admission: CollectorAdmission): Promise<Result<AdmittedCollector>> {
    if (admission.requester) await this.#continueGeneration(admission.requester);
    else this.#use();
    return this.#collectors.admit(admission);
  }

  async collectorResult(result: CollectorResult): Promise<Result<{ taken: boolean }>> {
    this.#use();
    return this.#collectors.take(result);
  }

  async waitCollectors(runIds: string[], timeoutMs: number): Promise<Result<CollectorSnapshot>> {
    this.#use();
    return this.#collectors.wait(runIds, timeoutMs);
  }

  async cancelCollectors(runIds?: string[]): Promise<Result<{ cancelled: string[] }>> {
    this.#use();
    return this.#collectors.cancel(runIds);
  }

  async releaseRun(runId: string): Promise<Result<{ released: boolean }>> {
    this.#use();
    return this.#turns.release(runId);
  }

  async noteWatching(targetKey: string): Promise<Result<{ noted: true }>> {
    // A requester that is no session keeps no record (a notice it cannot take drops its cursor there).
    if (this.#bare || !liveRecord(this.#sql)) return notFound();
    this.ctx.storage.transactionSync(() => noteWatching(this.#sql, targetKey, Date.now()));
    return { ok: true, value: { noted: true } };
  }

  async unwatch(watcherKey: string, before: number): Promise<Result<{ removed: boolean }>> {
    if (this.#bare) return notFound();
    const removed = await this.#write(() => dropWatcher(this.#sql, watcherKey, before));
    return { ok: true, value: { removed } };
  }

  async erasurePlan(sessionKey: string): Promise<Result<ErasurePlan>> {
    if (this.#bare) return notFound();
    return { ok: true, value: readErasurePlan(this.#sql, sessionKey) };
  }

  async eraseCopies(request: ErasureRequest): Promise<Result<ErasureAnswer>> {
    // An object holding no schema holds no copy; erasing must not create one (SPEC §23).
    if (this.#bare)
      return {
        ok: true,
        value: { messageIds: [], messages: 0, sent: 0, notices: 0, quotes: 0, summaries: 0, pending: 0 },
      };
    return { ok: true, value: await this.#write(() => writeErasure(this.#sql, request, Date.now())) };
  }

  async inspect(): Promise<Result<SessionInspection>> {
    if (this.#bare) return notFound();
    return inspectSession(this.#sql);
  }

  override async fetch(request: Request): Promise<Response> {
    this.#use();
    return this.#live.open(request);
  }

  async getRun(runId: string): Promise<Result<RunRecord>> {
    if (this.#bare) return notFound();
    return this.#turns.getRun(runId);
  }

  async waitForRun(runId: string, timeoutMs: number): Promise<Result<RunRecord>> {
    if (this.#bare) return notFound();
    return this.#turns.waitForRun(runId, timeoutMs);
  }

  async waitForProgress(runId: string, timeoutMs: number): Promise<Result<RunProgress>> {
    if (this.#bare) return notFound();
    return this.#turns.waitForProgress(runId, timeoutMs);
  }

  async completeDeferredRun(runId: string, result: DeferredResult): Promise<Result<RunRecord>> {
    if (this.#bare) return notFound();
    try {
      return await this.#turns.completeDeferred(runId, result);
    } catch (error) {
      // The run's end deleted the session (a `cleanup: "delete"` child) and its storage went with it.
      if (this.#bare) return notFound();
      throw error;
    }
  }

  /** Due work, top to bottom: outbox, runs in flight, queued runs, archiving; then the next alarm. */
  override async alarm(): Promise<void> {
    // A wiped object owes nothing (its alarm went with its storage; one already firing finds this).
    if (this.#bare) return;
    this.#alarm.forget();
    // What the outbox holds goes out alongside the first run, so a run never waits on D1 to start.
    const delivering = this.#outbox.deliver();
    this.#runs.recoverInterrupted();
    this.ctx.storage.transactionSync(() => wakeIfDue(this.#sql, sessionConfig(this.env), Date.now()));
    this.ctx.storage.transactionSync(() => pruneCollectors(this.#sql, Date.now()));
    await this.#runs.runQueued();
    const record = liveRecord(this.#sql);
    if (record)
      this.ctx.storage.transactionSync(() => {
        failIfOrphaned(this.#sql, record, Date.now());
        archiveIfDue(this.#sql, record, Date.now());
        retainSession(this.#sql, sessionConfig(this.env), record, Date.now());
      });
    // No session here (a requester that only sent, or a deleted one's tombstone): its sent records are
    // still pruned by their bounds (due_work, 0034).
    else this.ctx.storage.transactionSync(() => pruneSent(this.#sql, Date.now()));
    await delivering;
    // That pass may have wiped the storage (the session's deletion, delivered): nothing is left to do.
    if (this.#bare) return;
    // A requester never created whose last sent record went: nothing of it is kept (SPEC §23).
    if (holdsNothing(this.#sql)) return this.#wipeStorage();
    // The index writes runs held for their end go too: the runs this alarm took up have ended.
    await this.#outbox.deliver(true);
    await this.#alarm.rearm();
  }
}

/** "forbidden" when a viewer may not `action` this session (SPEC §4), checked on its own record. */
function refusedTo(
  viewer: Viewer | undefined,
  record: SessionRecord,
  action: VisibilityAction,
): { ok: false; code: "forbidden"; message: string } | undefined {
  const visible = viewer && checkSessionVisible(viewer.visibility, viewer.requester, record, action);
  return visible && !visible.ok ? { ok: false, code: "forbidden", message: visible.error } : undefined;
}
