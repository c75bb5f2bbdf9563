import type { TranscriptMessage } from "../../transcript/message";
import { BACKSTOP_MS } from "../alarm";
import {
  type AcceptedTurn,
  type CreateSessionInit,
  type DeferredResult,
  ENDED_STATUSES,
  type InboundAnswer,
  type InboundChannelMessage,
  isUnderway,
  notFound,
  type Result,
  type RunProgress,
  type RunRecord,
  type TurnRequest,
} from "../api";
import { sessionConfig } from "../config";
import type { Outbox } from "../outbox/outbox";
import { liveRecord } from "../record/record";
import type { RunWaiters } from "../run-waiters";
import { appendEvent, steeredEvent } from "../store/event-log";
import { holdIndexWrites } from "../store/outbox-store";
import { findRun, releaseHeldRun, runningRuns, toRunRecord } from "../store/run-store";
import { takeSteerSlot } from "../store/steer-slots";
import { structuredResultOf } from "../store/structured-output";
import { writeInboundMessage } from "../writes/inbound";
import { runProgress } from "../writes/run-progress";
import { writeSpawn, writeTurn } from "../writes/writes";
import type { Runs } from "./runs";

/**
 * The turn and run RPCs: accepts turns into the session (each starts a run, executed by `Runs` — at
 * once when nothing else runs, else after the runs before it),
 * restarts and completes runs, and answers the callers waiting on them. A part of the session object:
 * it writes, delivers through the outbox, and never calls back into the object.
 */
export class Turns {
  readonly #storage: DurableObjectStorage;
  readonly #env: Env;
  readonly #runs: Runs;
  readonly #outbox: Outbox;
  readonly #waiters: RunWaiters;

  constructor(storage: DurableObjectStorage, env: Env, runs: Runs, outbox: Outbox, waiters: RunWaiters) {
    this.#storage = storage;
    this.#env = env;
    this.#runs = runs;
    this.#outbox = outbox;
    this.#waiters = waiters;
  }

  get #sql(): SqlStorage {
    return this.#storage.sql;
  }

  /** A sub-agent's creation with its first turn (SessionApi.createWithTurn). */
  async createWithTurn(
    init: CreateSessionInit,
    turn: TurnRequest,
    fork: TranscriptMessage[],
  ): Promise<Result<AcceptedTurn>> {
    if (liveRecord(this.#sql)) return this.enqueue(turn);
    const config = sessionConfig(this.#env);
    this.#storage.transactionSync(() => writeSpawn(this.#sql, { init, fork, turn }, config, Date.now()));
    await this.#startAndFlush();
    return { ok: true, value: { runId: turn.runId, status: "queued", duplicate: false } };
  }

  /** An inbound channel message (SessionApi.acceptInbound): one transaction, then what it owes goes out. */
  async acceptInbound(message: InboundChannelMessage): Promise<Result<InboundAnswer>> {
    const config = sessionConfig(this.#env);
    const { interrupt, ...answer } = this.#storage.transactionSync(() => {
      const written = writeInboundMessage(this.#sql, config, message, Date.now());
      if (written.interrupt) this.#runs.interruptRuns(written.interrupt);
      return written;
    });
    await this.#outbox.flush();
    return { ok: true, value: answer };
  }

  /**
   * A run that starts now writes the turn's index rows with its end's, in one D1 batch after it (or
   * after RUNNING_LISTED_AFTER_MS if it runs longer: `Runs.execute` holds them till then), so it is
   * answered before its run row is in the index: a caller that names the session finds the run in it,
   * one that names only the run id finds it once the row is written (src/routes/v1/runs.ts looks again).
   * A turn queued behind another run (or a sub-agent's, whose slot is claimed on its index row) is
   * answered once the run index has the runId.
   */
  async enqueue(request: TurnRequest): Promise<Result<AcceptedTurn>> {
    const accepted = this.#write(request);
    if (!accepted.ok || accepted.value.duplicate) return accepted;
    // Started now: its index writes wait for the run's end; what else it owes (a watcher's notice) goes now.
    if (liveRecord(this.#sql)?.spawn === undefined && this.#runs.startQueued())
      await this.#outbox.flushHandoffs();
    else if (isFlowStep(request)) {
      // A reply or announce step of an exchange, queued behind a run: its run id is the service's own
      // (nobody asks for it by id), so its index writes wait for a run's end too (SPEC §24), or the
      // alarm at the backstop should the queue take longer.
      const now = Date.now();
      holdIndexWrites(this.#sql, now, now + BACKSTOP_MS);
      await this.#outbox.flushHandoffs();
    } else await this.#outbox.flush();
    return accepted;
  }

  /**
   * A run started now writes the turn's index rows with its end's, in one D1 batch after it (or when it
   * is listed as running, if it runs longer); answered once they are written.
   */
  async enqueueAndWait(request: TurnRequest, timeoutMs: number): Promise<Result<RunRecord>> {
    const accepted = this.#write(request);
    if (!accepted.ok) return accepted;
    if (accepted.value.duplicate) return this.waitForRun(accepted.value.runId, timeoutMs);
    const started = liveRecord(this.#sql)?.spawn === undefined && this.#runs.startQueued();
    const indexed = started ? undefined : this.#startAndFlush();
    const run = await this.waitForRun(accepted.value.runId, timeoutMs);
    await indexed;
    if (started) await this.#outbox.flushIndexWrites();
    return run;
  }

  /**
   * Delivers what a queued turn owes (its index writes) and starts its run without waiting for the
   * alarm: alongside the writes, or after them for a sub-agent, whose concurrency slot is claimed on
   * its index row (src/index-db/lookup.ts claimSubagentSlot).
   */
  async #startAndFlush(): Promise<void> {
    if (liveRecord(this.#sql)?.spawn !== undefined) return this.#runs.flushThenStart();
    this.#runs.startQueued();
    await this.#outbox.flush();
  }

  #write(request: TurnRequest): Result<AcceptedTurn> {
    const record = liveRecord(this.#sql);
    // A turn made for an earlier session of this key (deleted since) is not this session's (SPEC §23).
    if (!record || (request.forSessionId !== undefined && request.forSessionId !== record.sessionId))
      return notFound();
    const existing = findRun(this.#sql, request.runId, request.dedupeKey);
    if (existing)
      return { ok: true, value: { runId: existing.runId, status: existing.status, duplicate: true } };
    const config = sessionConfig(this.#env);
    this.#storage.transactionSync(() => writeTurn(this.#sql, record, config, request, Date.now()));
    return { ok: true, value: { runId: request.runId, status: "queued", duplicate: false } };
  }

  /** A held run (a collector's, waiting for a slot of its group) becomes runnable: it starts now. */
  async release(runId: string): Promise<Result<{ released: boolean }>> {
    if (!liveRecord(this.#sql)) return notFound();
    const released = this.#storage.transactionSync(() => releaseHeldRun(this.#sql, runId));
    if (released) await this.#startAndFlush();
    return { ok: true, value: { released } };
  }

  /** The current run is aborted without reporting, then a new run starts with the message. */
  async restart(
    requesterKey: string,
    runId: string,
    text: string,
  ): Promise<Result<{ runId: string; rateLimited: boolean }>> {
    const record = liveRecord(this.#sql);
    if (!record) return notFound();
    // OpenClaw has no steer for a collector: its result is collected, under the run id it was spawned with.
    if (record.spawn?.collect)
      return {
        ok: false,
        code: "forbidden",
        message: "A collector sub-agent cannot be steered: collect its result with agents_wait.",
      };
    const allowed = this.#storage.transactionSync(() => {
      if (!takeSteerSlot(this.#sql, requesterKey, Date.now())) return false;
      const provenance = { kind: "inter_session" as const, sourceSessionKey: requesterKey };
      for (const active of runningRuns(this.#sql))
        appendEvent(this.#sql, steeredEvent(active.runId, provenance));
      return true;
    });
    if (!allowed) return { ok: true, value: { runId, rateLimited: true } };
    this.#runs.stopRuns("steer");
    const accepted = await this.enqueue({
      runId,
      message: { text, provenance: { kind: "subagent_task", sourceSessionKey: requesterKey } },
    });
    return accepted.ok ? { ok: true, value: { runId, rateLimited: false } } : accepted;
  }

  async getRun(runId: string): Promise<Result<RunRecord>> {
    const record = liveRecord(this.#sql);
    const row = record ? findRun(this.#sql, runId) : undefined;
    if (!record || !row) return notFound();
    return {
      ok: true,
      value: { ...toRunRecord(row, record.sessionKey), ...structuredResultOf(this.#sql, record, row) },
    };
  }

  async waitForRun(runId: string, timeoutMs: number): Promise<Result<RunRecord>> {
    const current = await this.getRun(runId);
    if (!current.ok || ENDED_STATUSES.has(current.value.status) || timeoutMs <= 0) return current;
    await this.#waiters.waitFor(runId, timeoutMs);
    return this.getRun(runId);
  }

  /** Re-read at each run end of this session until the run is terminal or the time is up. */
  async waitForProgress(runId: string, timeoutMs: number): Promise<Result<RunProgress>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const record = liveRecord(this.#sql);
      const progress = record ? runProgress(this.#sql, record, runId) : undefined;
      if (!progress) return notFound();
      const left = deadline - Date.now();
      if (!isUnderway(progress) || left <= 0) return { ok: true, value: progress };
      await this.#waiters.waitForAnyEnd(left);
    }
  }

  async completeDeferred(runId: string, result: DeferredResult): Promise<Result<RunRecord>> {
    const row = liveRecord(this.#sql) ? findRun(this.#sql, runId) : undefined;
    if (!row) return notFound();
    if (await this.#runs.completeDeferred(row, result)) await this.#outbox.flush();
    return this.getRun(runId);
  }
}

/** A later step of an agent-to-agent exchange (SPEC §8): a turn the service queued, not a caller. */
const isFlowStep = (request: TurnRequest): boolean =>
  request.flow !== undefined && request.flow.stage !== "request";
