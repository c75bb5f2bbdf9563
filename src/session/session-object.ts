import { DurableObject } from "cloudflare:workers";
import { subagentSettings } from "../config/agents";
import { keyOptionsOf } from "../config/key-options";
import { loadConfig } from "../config/load";
import type { SwitchboardConfig } from "../config/schema";
import { countRunningSubagents } from "../index-db/lookup";
import type { Requester } from "../policy/requester";
import { checkSessionVisible, type VisibilityConfig } from "../policy/visibility";
import { COMPLETION_CONTEXT, type Completion, completionMessage } from "../subagents/completion";
import type { TranscriptMessage } from "../transcript/message";
import { takeSteerSlot } from "./control";
import { insertSession } from "./create";
import { deliverEffect, type EffectHost, indexWrite, isIndexWrite } from "./effects";
import { indexColumns } from "./index-row";
import { forgetMeta, readMeta, type SessionMeta, updateMeta } from "./meta";
import { applySessionMigrations } from "./migrations";
import { deferEffect, enqueueEffect, nextOutboxAttempt, pendingEffects, settleEffect } from "./outbox";
import { type SessionRow, toSessionRow } from "./row";
import type { RunEnding } from "./run-lifecycle";
import { RunScheduler } from "./run-scheduler";
import {
  ENDED_STATUSES,
  earliestDeadline,
  findRun,
  hasQueuedRuns,
  nextRunnable,
  type RunRecord,
  type RunStatus,
  type TurnRequest,
  toRunRecord,
} from "./run-store";
import {
  type HistoryPage,
  type HistoryRequest,
  readExportChunk,
  readHistoryPage,
  readRecentMessages,
} from "./transcript";
import {
  type CreateSessionInit,
  type ImportReceipt,
  notFound,
  type SessionPatch,
  type StoreResult,
} from "./types";
import {
  archiveIfDue,
  enqueueIndexSync,
  type InboundRecord,
  writeImport,
  writeInbound,
  writeTurn,
  writeYieldNote,
} from "./writes";

export type { CreateSessionInit, ImportReceipt, SessionPatch, StoreResult } from "./types";

/** A turn as queued: its run, and whether it had been queued before (then nothing was written). */
export interface QueuedTurn {
  runId: string;
  status: RunStatus;
  duplicate: boolean;
}
export { DEFAULT_RUN_TIMEOUT_MS } from "./writes";

// If the object is evicted between a write and its inline delivery, this alarm finishes the job.
const OUTBOX_SAFETY_DELAY_MS = 5000;
/** How soon a sub-agent run waiting for a concurrency slot looks again. */
const SLOT_RETRY_MS = 1000;

/** One session: its record, transcript (one row per message), runs and outbox, in SQLite. */
export class SessionObject extends DurableObject<Env> {
  readonly #sql: SqlStorage;
  readonly #runs: RunScheduler;
  /** Set while this sub-agent session waits for its agent's \`maxConcurrent\` to allow another run. */
  #waitingForSlotUntil: number | undefined;
  /** Outbox entries being delivered right now, by id. */
  readonly #delivering = new Set<number>();
  /** The alarm this instance last set (null: none); undefined when not known, as once it has fired. */
  #alarmAt: number | null | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#sql = ctx.storage.sql;
    this.#runs = new RunScheduler({
      storage: ctx.storage,
      env,
      config: () => this.#config(),
      liveMeta: () => this.#liveMeta(),
      enqueueIndexSync: () => enqueueIndexSync(this.#sql),
      settle: () => this.#settle(),
      arm: () => this.#rearm(OUTBOX_SAFETY_DELAY_MS),
    });
    void ctx.blockConcurrencyWhile(async () => applySessionMigrations(this.#sql));
  }

  #config(): SwitchboardConfig {
    const loaded = loadConfig(this.env);
    if (!loaded.ok) throw new Error(loaded.error);
    return loaded.config;
  }

  #liveMeta(): SessionMeta | undefined {
    const meta = readMeta(this.#sql);
    return meta && meta.deletedAt === undefined ? meta : undefined;
  }

  #row(meta: SessionMeta): SessionRow {
    const config = this.#config();
    return toSessionRow(indexColumns(meta, config), keyOptionsOf(config));
  }

  /** Creates the session; a live session under the same key is a conflict. */
  async create(init: CreateSessionInit): Promise<StoreResult<SessionRow>> {
    if (this.#liveMeta())
      return { ok: false, code: "conflict", message: `session ${init.sessionKey} already exists` };
    this.ctx.storage.transactionSync(() => {
      insertSession(this.#sql, init, Date.now());
      enqueueIndexSync(this.#sql);
    });
    await this.#settle();
    return this.describe();
  }

  /** The session, created first if it does not exist (channel inbound messages create their session). */
  async ensure(init: CreateSessionInit): Promise<StoreResult<SessionRow>> {
    return this.#liveMeta() ? this.describe() : this.create(init);
  }

  /** The session as callers see it. */
  async describe(): Promise<StoreResult<SessionRow>> {
    const meta = this.#liveMeta();
    return meta ? { ok: true, value: this.#row(meta) } : notFound();
  }

  /** Changes operator-settable fields; null clears one. */
  async patch(changes: SessionPatch): Promise<StoreResult<SessionRow>> {
    if (!this.#liveMeta()) return notFound();
    this.ctx.storage.transactionSync(() => {
      updateMeta(this.#sql, changes);
      enqueueIndexSync(this.#sql);
    });
    await this.#settle();
    return this.describe();
  }

  /** Deletes the session: hidden at once, storage wiped once its index row is gone. */
  async remove(): Promise<StoreResult<{ deleted: true }>> {
    const meta = this.#liveMeta();
    if (!meta) return notFound();
    this.ctx.storage.transactionSync(() => {
      updateMeta(this.#sql, { deletedAt: Date.now() });
      const version = readMeta(this.#sql)?.version ?? meta.version + 1;
      enqueueEffect(this.#sql, "index_delete", "index", { sessionKey: meta.sessionKey, version });
    });
    this.#runs.abortAll("killed");
    await this.#settle();
    return { ok: true, value: { deleted: true } };
  }

  /** Imports messages as they are, in order; ids already stored are skipped (idempotent). */
  async importMessages(messages: TranscriptMessage[]): Promise<StoreResult<ImportReceipt>> {
    const meta = this.#liveMeta();
    if (!meta) return notFound();
    const receipt = this.ctx.storage.transactionSync(() => writeImport(this.#sql, meta, messages));
    await this.#settle();
    return { ok: true, value: receipt };
  }

  /** A page of safe history (SPEC §5.2). */
  async history(request: HistoryRequest): Promise<StoreResult<HistoryPage>> {
    if (!this.#liveMeta()) return notFound();
    return { ok: true, value: readHistoryPage(this.#sql, request) };
  }

  /**
   * `history` for a requester, after SPEC §4's visibility check against this session's own record: a
   * reference that can only be this key needs no index lookup first. The caller's configuration
   * decides (its visibility part comes along), as it does for every other check.
   */
  async historyFor(
    viewer: { requester: Requester; visibility: VisibilityConfig },
    request: HistoryRequest,
  ): Promise<StoreResult<HistoryPage>> {
    const meta = this.#liveMeta();
    if (!meta) return notFound();
    const target = { sessionKey: meta.sessionKey, agentId: meta.agentId, spawnedBy: meta.spawnedBy };
    const visible = checkSessionVisible(viewer.visibility, viewer.requester, target, "history");
    if (!visible.ok) return { ok: false, code: "forbidden", message: visible.error };
    return { ok: true, value: readHistoryPage(this.#sql, request) };
  }

  /** The last `count` non-tool messages, made safe, for list rows. */
  async recentMessages(count: number): Promise<TranscriptMessage[]> {
    return this.#liveMeta() ? readRecentMessages(this.#sql, count) : [];
  }

  /** Bench baseline (src/routes/bench.ts): the bare cost of one RPC round trip. */
  async ping(): Promise<string> {
    return "pong";
  }

  /** Bench baseline: the history page's row read (newest `limit` bodies), without the service's work. */
  async benchHistorySql(limit: number): Promise<number> {
    return this.#sql.exec("SELECT body FROM message ORDER BY seq DESC LIMIT ?", limit).toArray().length;
  }

  /** A chunk of the exact JSONL export. */
  async exportChunk(
    afterSeq: number,
    limit: number,
  ): Promise<StoreResult<{ lines: string[]; lastSeq: number }>> {
    if (!this.#liveMeta()) return notFound();
    return { ok: true, value: readExportChunk(this.#sql, afterSeq, limit) };
  }

  /**
   * Appends an inbound message and queues a run for it, in one transaction. Idempotent: a request
   * whose runId or dedupe key was seen before returns that run and writes nothing.
   */
  async enqueueTurn(request: TurnRequest): Promise<StoreResult<QueuedTurn>> {
    const queued = this.#writeTurn(request);
    // Answered once the run index has the runId too, so whoever gets the runId can look the run up.
    if (queued.ok && !queued.value.duplicate) await this.#settle();
    return queued;
  }

  /**
   * `enqueueTurn`, then `waitForRun` on it: a send that waits makes one call to its target, not two, and
   * the turn's index writes go out while its run starts rather than before. Still answered only once
   * they are written, so the runId it returns can be looked up.
   */
  async enqueueTurnAndWait(request: TurnRequest, timeoutMs: number): Promise<StoreResult<RunRecord>> {
    const queued = this.#writeTurn(request);
    if (!queued.ok) return queued;
    const indexed = queued.value.duplicate ? undefined : this.#settle();
    const run = await this.waitForRun(queued.value.runId, timeoutMs);
    await indexed;
    return run;
  }

  /** Appends a turn and queues its run, in one transaction; a turn seen before writes nothing. */
  #writeTurn(request: TurnRequest): StoreResult<QueuedTurn> {
    const meta = this.#liveMeta();
    if (!meta) return notFound();
    const existing = findRun(this.#sql, request.runId, request.dedupeKey);
    if (existing)
      return { ok: true, value: { runId: existing.runId, status: existing.status, duplicate: true } };
    this.ctx.storage.transactionSync(() => writeTurn(this.#sql, meta, this.#config(), request, Date.now()));
    return { ok: true, value: { runId: request.runId, status: "queued", duplicate: false } };
  }

  /** One of the files this session was spawned with. */
  async attachment(name: string): Promise<StoreResult<{ bytes: ArrayBuffer; mimeType?: string }>> {
    if (!this.#liveMeta()) return notFound();
    const row = this.#sql
      .exec<{ bytes: ArrayBuffer; mime_type: string | null }>(
        "SELECT bytes, mime_type FROM attachment WHERE name = ?",
        name,
      )
      .toArray()[0];
    if (!row) return { ok: false, code: "not_found", message: `no attachment named "${name}"` };
    return { ok: true, value: { bytes: row.bytes, ...(row.mime_type ? { mimeType: row.mime_type } : {}) } };
  }

  /**
   * Stops this session's runs (subagents kill): each ends `killed` and reports like any ended run, unless
   * the kill cascades from a killed ancestor (`cascade`), whose runs end without a completion.
   */
  async kill(options: { cascade?: boolean } = {}): Promise<StoreResult<{ stopped: number }>> {
    if (!this.#liveMeta()) return notFound();
    const stopped = this.#runs.stopRuns(options.cascade ? "cascade" : "killed");
    await this.#settle();
    return { ok: true, value: { stopped } };
  }

  /**
   * Restarts this session's work with a new message (subagents steer): the current run is aborted without
   * reporting, then a new run starts. At most one steer per controller every 2 seconds.
   */
  async steer(
    requesterKey: string,
    runId: string,
    text: string,
  ): Promise<StoreResult<{ runId: string; rateLimited: boolean }>> {
    if (!this.#liveMeta()) return notFound();
    const allowed = this.ctx.storage.transactionSync(() =>
      takeSteerSlot(this.#sql, requesterKey, Date.now()),
    );
    if (!allowed) return { ok: true, value: { runId, rateLimited: true } };
    this.#runs.stopRuns("steer");
    const queued = await this.enqueueTurn({
      runId,
      message: { text, provenance: { kind: "subagent_task", sourceSessionKey: requesterKey } },
    });
    return queued.ok ? { ok: true, value: { runId, rateLimited: false } } : queued;
  }

  /**
   * Ends the current run at its own request (sessions_yield), keeping the message as hidden context;
   * the next inbound event starts a fresh turn. False when that run is not the current one.
   */
  async yieldRun(runId: string, message: string): Promise<StoreResult<{ yielded: boolean }>> {
    const meta = this.#liveMeta();
    if (!meta) return notFound();
    const run = findRun(this.#sql, runId);
    if (run?.status !== "running" || !this.#runs.yieldRun(run))
      return { ok: true, value: { yielded: false } };
    this.ctx.storage.transactionSync(() => writeYieldNote(this.#sql, meta, runId, message, Date.now()));
    // A deferred run ended just now: its follow-ups go out, and the next queued run may start.
    await this.#settle();
    return { ok: true, value: { yielded: true } };
  }

  /** A sub-agent's completion: an internal message and a turn to turn it into an update (SPEC §5.4). */
  async deliverCompletion(runId: string, completion: Completion): Promise<StoreResult<QueuedTurn>> {
    return this.enqueueTurn({
      runId,
      // Exactly once: a redelivered completion finds the turn the first one started.
      dedupeKey: `completion:${completion.runId}`,
      message: {
        id: `completion:${completion.runId}`,
        text: completionMessage(completion),
        provenance: { kind: "subagent_completion", sourceSessionKey: completion.childKey },
      },
      context: COMPLETION_CONTEXT,
      replyToOwnChannel: true,
    });
  }

  /**
   * Records an inbound channel message that starts no run (a `/send` command, or one the send policy
   * blocks), with an optional answer posted back. Idempotent by message id.
   */
  async recordInbound(inbound: InboundRecord): Promise<StoreResult<{ duplicate: boolean }>> {
    const meta = this.#liveMeta();
    if (!meta) return notFound();
    const duplicate = this.ctx.storage.transactionSync(() =>
      writeInbound(this.#sql, meta, inbound, Date.now()),
    );
    await this.#settle();
    return { ok: true, value: { duplicate } };
  }

  /** One run of this session. */
  async getRun(runId: string): Promise<StoreResult<RunRecord>> {
    const meta = this.#liveMeta();
    const row = meta ? findRun(this.#sql, runId) : undefined;
    return meta && row ? { ok: true, value: toRunRecord(row, meta.sessionKey) } : notFound();
  }

  /** Waits up to `timeoutMs` for a run to end; answers with the run either way. */
  async waitForRun(runId: string, timeoutMs: number): Promise<StoreResult<RunRecord>> {
    const current = await this.getRun(runId);
    if (!current.ok || ENDED_STATUSES.has(current.value.status) || timeoutMs <= 0) return current;
    await this.#runs.waitFor(runId, timeoutMs);
    return this.getRun(runId);
  }

  /** The result of a deferred (webhook 202) run, posted later by the agent. */
  async completeDeferredRun(
    runId: string,
    result: { text: string; usage?: RunEnding["usage"] },
  ): Promise<StoreResult<RunRecord>> {
    const row = this.#liveMeta() ? findRun(this.#sql, runId) : undefined;
    if (!row) return notFound();
    if (this.#runs.completeDeferred(row, result)) await this.#settle();
    return this.getRun(runId);
  }

  override async alarm(): Promise<void> {
    this.#alarmAt = undefined;
    // Effects left over go out alongside the first run, so a queued run never waits on D1 (or on an
    // outbox retry) to start.
    const leftovers = this.#deliverEffects();
    this.#runs.recoverInterrupted();
    this.#waitingForSlotUntil = undefined;
    for (let row = nextRunnable(this.#sql); row; row = nextRunnable(this.#sql)) {
      if (!(await this.#hasSubagentSlot())) {
        this.#waitingForSlotUntil = Date.now() + SLOT_RETRY_MS;
        break;
      }
      await this.#runs.execute(row);
      await this.#deliverEffects();
    }
    this.#archiveIfDue();
    await leftovers;
    await this.#deliverEffects();
    await this.#rearm();
  }

  /**
   * \`maxConcurrent\` caps an agent's sub-agent runs in flight (SPEC §2): a sub-agent session whose agent
   * is at the cap keeps its run queued and looks again shortly; the run waits, it is never rejected.
   */
  async #hasSubagentSlot(): Promise<boolean> {
    const meta = this.#liveMeta();
    if (!meta?.spawn) return true;
    const { maxConcurrent } = subagentSettings(this.#config(), meta.agentId);
    return (await countRunningSubagents(this.env.DB, meta.agentId, meta.sessionKey)) < maxConcurrent;
  }

  /** Archives an idle sub-agent session once its \`archiveAfterMinutes\` have passed (SPEC §5.4). */
  #archiveIfDue(): void {
    const meta = this.#liveMeta();
    if (meta) this.ctx.storage.transactionSync(() => archiveIfDue(this.#sql, meta, Date.now()));
  }

  /** Delivers what a write owes others at once, and leaves the alarm set for whatever is left. */
  async #settle(): Promise<void> {
    await this.#rearm(OUTBOX_SAFETY_DELAY_MS);
    await this.#deliverEffects();
    await this.#rearm();
  }

  /** One alarm for all due work: queued runs now, deadlines of runs in flight, outbox retries. */
  async #rearm(outboxDelay = 0): Promise<void> {
    if (!readMeta(this.#sql)) return;
    const outbox = nextOutboxAttempt(this.#sql);
    const due = [
      outbox === undefined ? undefined : outbox + outboxDelay,
      hasQueuedRuns(this.#sql) && !this.#runs.busy ? (this.#waitingForSlotUntil ?? Date.now()) : undefined,
      earliestDeadline(this.#sql),
      this.#liveMeta()?.archiveAt,
    ].filter((time): time is number => time !== undefined);
    const next = due.length === 0 ? null : Math.min(...due);
    // An alarm already set for no later than `next` runs the handler, which re-arms: no need to write
    // one. Every alarm write is a storage transaction, and those set the pace of local runs.
    const alreadyArmed =
      next === null ? this.#alarmAt === null : this.#alarmAt != null && this.#alarmAt <= next;
    if (alreadyArmed) return;
    if (next === null) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(next);
    this.#alarmAt = next;
  }

  /** What an effect is delivered with: the bindings, the config and the current record. */
  #effectHost(): EffectHost {
    return { env: this.env, config: this.#config(), meta: readMeta(this.#sql) };
  }

  /** Delivers every pending effect; failures stay in the outbox with a backoff. */
  async #deliverEffects(): Promise<void> {
    await this.#deliverIndexWrites();
    for (const entry of pendingEffects(this.#sql)) {
      // Passes may overlap (a request and the alarm); an entry one of them is delivering is left to it,
      // so it is posted once. Waiting for that pass instead could deadlock on a turn sent to ourselves.
      if (this.#delivering.has(entry.id)) continue;
      this.#delivering.add(entry.id);
      try {
        const result = await deliverEffect(this.#effectHost(), entry);
        settleEffect(this.#sql, entry);
        if (result === "remove") {
          await this.remove();
          return;
        }
        if (result === "wipe") {
          // The index no longer points here: drop everything, then restore the empty schema for reuse.
          await this.ctx.storage.deleteAll();
          forgetMeta(this.#sql);
          this.#alarmAt = undefined;
          applySessionMigrations(this.#sql);
          return;
        }
      } catch (cause) {
        deferEffect(this.#sql, entry, cause instanceof Error ? cause.message : String(cause));
        console.warn(`session outbox: ${entry.kind} failed (attempt ${entry.attempts + 1}), will retry`);
      } finally {
        this.#delivering.delete(entry.id);
      }
    }
  }

  /**
   * The pending index writes (session row, run index) in one D1 batch: one round trip and one
   * transaction instead of one each. If the batch fails, nothing of it was written, and the entries are
   * left to the one-by-one pass that follows, so one bad write cannot hold the others back.
   */
  async #deliverIndexWrites(): Promise<void> {
    const entries = pendingEffects(this.#sql).filter(
      (entry) => isIndexWrite(entry) && !this.#delivering.has(entry.id),
    );
    if (entries.length < 2) return;
    for (const entry of entries) this.#delivering.add(entry.id);
    try {
      const host = this.#effectHost();
      const statements = entries.flatMap((entry) => indexWrite(host, entry));
      if (statements.length > 0) await this.env.DB.batch(statements);
      for (const entry of entries) settleEffect(this.#sql, entry);
    } catch (cause) {
      console.warn(`session outbox: batched index writes failed, delivering one by one: ${String(cause)}`);
    } finally {
      for (const entry of entries) this.#delivering.delete(entry.id);
    }
  }
}
