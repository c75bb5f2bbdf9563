import { findAgent, subagentSettings } from "../../config/agents";
import type { AgentConfig } from "../../config/schema";
import { claimSubagentSlot } from "../../index-db/lookup";
import { indexShards } from "../../index-db/shards";
import { type Alarm, BACKSTOP_MS } from "../alarm";
import type { DeferredResult } from "../api";
import { sessionConfig } from "../config";
import type { Outbox } from "../outbox/outbox";
import { liveRecord, updateRecord } from "../record/record";
import type { RunWaiters } from "../run-waiters";
import { addIndexSync, holdIndexWrites } from "../store/outbox-store";
import {
  deferRunStart,
  findRun,
  markRunDeferred,
  markRunStarted,
  nextRunnable,
  queuedRuns,
  type RunEnding,
  type RunRow,
  recordRetry,
  requeueRun,
  runningRuns,
} from "../store/run-store";
import { structuredEnding } from "../store/structured-output";
import { addUsageReport, recordBudgetRefusal } from "../writes/budget";
import { addCronRunReport } from "../writes/cron-report";
import { type AbortReason, abortedEnding, recordRunEnding, resultEnding } from "../writes/run-ending";
import { waitingRun } from "../writes/run-progress";
import { clearSteering, queueSteeringFollowUp } from "../writes/steering";
import { budgetRefusal } from "./budget-gate";
import { liveReplyFor } from "./live-reply";
import { mustWait, taskEnding, waitingEnding } from "./outstanding-work";
import { executeRun } from "./run-executor";
import { RunLoop } from "./run-loop";
import { recordSend } from "./sends";

/** A run interrupted by an eviction this many times ends as an error instead of starting again. */
const MAX_RUN_ATTEMPTS = 3;
/** How soon a sub-agent run waiting for a concurrency slot looks again. */
const SLOT_RETRY_MS = 1000;

/**
 * How long a run runs before the index shows it `running` (a run that ends sooner just shows its end),
 * and before the index writes its turn owes (its run row, its message's search row) are written if it
 * has not ended: a quicker run writes them all with its end's, one D1 batch (SPEC §24).
 */
export const RUNNING_LISTED_AFTER_MS = 250;

/**
 * The session's runs (table `run`): executes them one at a time in arrival order, and keeps what only
 * lives in memory — the runs executing in this instance (a `running` row not among them was interrupted
 * by an eviction). What a run's end owes others goes to the outbox; whoever waits for it is woken.
 */
export class Runs {
  readonly #storage: DurableObjectStorage;
  readonly #env: Env;
  readonly #outbox: Outbox;
  readonly #alarm: Alarm;
  readonly #executing = new Map<string, AbortController>();
  readonly #loop: RunLoop;
  readonly #waiters: RunWaiters;
  /** Results a webhook agent posted before its 202 reached us; applied when the 202 does. */
  readonly #earlyResults = new Map<string, DeferredResult>();

  constructor(storage: DurableObjectStorage, env: Env, outbox: Outbox, alarm: Alarm, waiters: RunWaiters) {
    this.#storage = storage;
    this.#env = env;
    this.#outbox = outbox;
    this.#alarm = alarm;
    this.#waiters = waiters;
    this.#loop = new RunLoop(storage, alarm, () => this.#drainQueue());
  }

  get #sql(): SqlStorage {
    return this.#storage.sql;
  }

  /** Executes queued runs in order until none is left (RunLoop: one loop per instance). */
  runQueued(): Promise<void> {
    return this.#loop.run();
  }

  /** Starts the queued run now, if it can start now, instead of when the alarm fires (RunLoop). */
  startQueued(): boolean {
    if (!this.#loop.startable()) return false;
    this.#loop.start();
    return true;
  }

  /**
   * Delivers what was just written (Outbox.flush), then starts the queued run as startQueued does: a
   * sub-agent's, whose concurrency slot is claimed on the index row this delivers. The alarm is the
   * run's backstop from the start, so it does not fire to start the run meanwhile.
   */
  async flushThenStart(): Promise<void> {
    if (!this.#loop.startable()) return this.#outbox.flush();
    let flushed = Promise.resolve();
    // The loop calls `first` before its first await, so `flushed` is this flush by the line below.
    this.#loop.start(() => {
      flushed = this.#outbox.flush();
      return flushed;
    });
    await flushed;
  }

  /**
   * One pass of the loop. A sub-agent session whose agent is at its `maxConcurrent` (SPEC §2) keeps its
   * run queued and looks again shortly: it waits, never rejected.
   */
  async #drainQueue(): Promise<void> {
    for (let row = nextRunnable(this.#sql); row && liveRecord(this.#sql); row = nextRunnable(this.#sql)) {
      // A chat's collected messages (SPEC §21 busy `collect`) wait out their debounce: the alarm is set
      // for it. (A sub-agent's slot retry is looked at again whenever the loop runs: its test is the slot.)
      if (row.dedupeKey?.startsWith("channel:") && (row.notBefore ?? 0) > Date.now()) return;
      if (await this.#refusedByBudget(row)) continue;
      if (!(await this.#hasSubagentSlot())) {
        deferRunStart(this.#sql, row.runId, Date.now() + SLOT_RETRY_MS);
        return;
      }
      // The claim awaited D1: a kill meanwhile ended the run (and its newer index write frees the slot).
      const current = findRun(this.#sql, row.runId);
      if (current?.status !== "queued") continue;
      await this.execute(current);
      await this.#outbox.deliver(true);
    }
  }

  /**
   * A run its agent's budget does not let start (SPEC §20) ends here, `error` with the reason, in one
   * transaction with its `budget` event and the chat's notice. A resumed run started once already: it
   * goes on. True when the run was refused (or ended meanwhile).
   */
  async #refusedByBudget(row: RunRow): Promise<boolean> {
    if (row.startedAt !== undefined) return false;
    const refusal = await budgetRefusal(this.#env, this.#sql, this.#agent(), Date.now());
    if (!refusal) return false;
    const current = findRun(this.#sql, row.runId);
    const record = liveRecord(this.#sql);
    if (current?.status !== "queued" || !record) return true;
    this.end(current, { status: "error", error: refusal.line, messages: [] }, () =>
      recordBudgetRefusal(this.#sql, sessionConfig(this.#env), record, current, refusal, Date.now()),
    );
    await this.#outbox.deliver(true);
    return true;
  }

  async #hasSubagentSlot(): Promise<boolean> {
    const record = liveRecord(this.#sql);
    if (!record?.spawn) return true;
    const { maxConcurrent } = subagentSettings(sessionConfig(this.#env), record.agentId);
    return claimSubagentSlot(indexShards(this.#env), record, maxConcurrent);
  }

  /** True while a run executing here has been told to stop and has not ended yet. */
  stopping(runId: string): boolean {
    return this.#executing.get(runId)?.signal.aborted === true;
  }

  /** Aborts every run executing here; `reason` says how they end. */
  abortAll(reason: AbortReason): void {
    for (const controller of this.#executing.values()) controller.abort(reason);
  }

  /**
   * Stops the session's runs: the one executing here is aborted (and ends when its runtime returns),
   * one left running by an evicted instance and every queued one end now. Returns how many were stopped.
   */
  stopRuns(reason: "killed" | "cascade" | "steer"): number {
    let stopped = 0;
    for (const row of [...runningRuns(this.#sql), ...queuedRuns(this.#sql)]) {
      const controller = this.#executing.get(row.runId);
      if (controller) controller.abort(reason);
      else this.end(row, abortedEnding(reason, row, []));
      stopped++;
    }
    // A run that yielded waits for its children: stopped, it ends killed (and reports, unless the kill
    // cascades from an ancestor), so its requester is not left waiting for a turn that never comes.
    const waiting = stopped === 0 && reason !== "steer" ? waitingRun(this.#sql) : undefined;
    if (waiting) {
      this.end(waiting, abortedEnding(reason, waiting, []));
      stopped++;
    }
    return stopped;
  }

  /**
   * A channel message that interrupts (SPEC §21 busy `interrupt`): the active run and the channel runs
   * queued before `runId` stop (killed, no reply posted), so `runId` answers all their messages at once.
   */
  interruptRuns(runId: string): void {
    const queued = queuedRuns(this.#sql).filter((row) => row.dedupeKey?.startsWith("channel:"));
    for (const row of [...runningRuns(this.#sql), ...queued]) {
      if (row.runId === runId) continue;
      const controller = this.#executing.get(row.runId);
      if (controller) controller.abort("interrupt");
      else this.end(row, abortedEnding("interrupt", row, []));
    }
  }

  /**
   * Ends a run cleanly at its own request (sessions_yield): the one executing here is aborted, and one
   * waiting for its webhook agent's posted result (a 202) ends now. False if the run is neither.
   */
  yieldRun(row: RunRow): boolean {
    const controller = this.#executing.get(row.runId);
    if (controller) {
      controller.abort("yield");
      return true;
    }
    if (row.status !== "running" || row.deferred !== 1) return false;
    this.end(row, abortedEnding("yield", row, []));
    return true;
  }

  /** Runs left `running` by an evicted instance start again, or end once past their deadline or tries. */
  recoverInterrupted(): void {
    const now = Date.now();
    for (const row of runningRuns(this.#sql)) {
      if (this.#executing.has(row.runId)) continue;
      if (row.deadlineAt !== undefined && row.deadlineAt <= now) {
        this.end(row, abortedEnding("timeout", row, []));
      } else if (row.deferred === 1) {
        // Waiting for the agent's posted result; the deadline above still ends it.
      } else if (row.attempts >= MAX_RUN_ATTEMPTS) {
        this.end(row, {
          status: "error",
          error: `run interrupted ${row.attempts} times; giving up`,
          messages: [],
        });
      } else {
        this.#storage.transactionSync(() =>
          requeueRun(this.#sql, row.runId, "interrupted by a restart; run again"),
        );
      }
    }
  }

  /** Executes one queued run with its runtime and records how it ended. */
  async execute(row: RunRow): Promise<void> {
    const record = liveRecord(this.#sql);
    if (!record) return;
    const now = Date.now();
    const deadlineAt = now + row.timeoutMs;
    const controller = new AbortController();
    this.#storage.transactionSync(() => {
      markRunStarted(this.#sql, row.runId, now, deadlineAt);
      updateRecord(this.#sql, { status: "running", startedAt: now });
      addIndexSync(this.#sql);
      // Held until the run ends or is listed running (the timer below); after a crash the alarm writes
      // them at the run's backstop, so no alarm fires in the middle of a run that goes on.
      holdIndexWrites(this.#sql, now, now + BACKSTOP_MS);
    });
    // Executing from the moment it is marked running: an alarm handler that overlaps this one (the test
    // harness can run one) would otherwise take it for interrupted and run it a second time.
    this.#executing.set(row.runId, controller);
    let timer: ReturnType<typeof setTimeout> | undefined;
    // Listings show a run as running while it runs, once it has run for RUNNING_LISTED_AFTER_MS: a
    // quicker run writes its index row once, at its end (the outbox entry is the same one), instead of
    // twice, and never waits on D1 to start.
    let listedRunning: Promise<void> | undefined;
    const listTimer = setTimeout(() => {
      listedRunning = this.#outbox.flush(true);
    }, RUNNING_LISTED_AFTER_MS);
    const config = sessionConfig(this.#env);
    const live = liveReplyFor(this.#env, config, this.#sql, row, controller.signal);
    try {
      // The alarm stays set while the run is in flight, so a fresh instance takes it up if this one dies.
      await this.#alarm.rearm();
      timer = setTimeout(() => controller.abort("timeout"), row.timeoutMs);
      live?.start(Date.now());
      const outcome = await executeRun({
        env: this.#env,
        sql: this.#sql,
        config,
        record,
        run: { ...row, startedAt: row.startedAt ?? now },
        deadlineAt,
        signal: controller.signal,
        onRetry: (note) => recordRetry(this.#sql, row.runId, note),
        recordSend: (send) => recordSend(this.#storage, this.#alarm, send),
        transact: (write) => this.#storage.transactionSync(write),
        ...(live ? { live } : {}),
      });
      // The draft a call still out posts is recorded before the run's end takes it (writes/run-ending.ts).
      await live?.settle();
      const current = findRun(this.#sql, row.runId);
      if (current?.status !== "running") return;
      if (controller.signal.aborted) {
        const reason = controller.signal.reason as AbortReason;
        this.end(current, abortedEnding(reason, row, outcome.kind === "done" ? outcome.messages : []));
      } else if (outcome.kind === "deferred") {
        const early = this.#earlyResults.get(row.runId);
        if (early)
          await this.#endDone(current, resultEnding(row.runId, this.#agent(), early), controller.signal);
        else markRunDeferred(this.#sql, row.runId);
      } else if (outcome.kind === "failed") {
        this.end(current, { status: "error", error: outcome.error, messages: [] });
      } else {
        const done: RunEnding = {
          status: "ok",
          reply: outcome.text,
          ...(outcome.usage ? { usage: outcome.usage } : {}),
          ...(outcome.model !== undefined ? { model: outcome.model } : {}),
          ...(outcome.provider !== undefined ? { provider: outcome.provider } : {}),
          messages: outcome.messages,
        };
        await this.#endDone(current, done, controller.signal);
      }
    } finally {
      await live?.settle();
      if (timer !== undefined) clearTimeout(timer);
      clearTimeout(listTimer);
      this.#executing.delete(row.runId);
      this.#earlyResults.delete(row.runId);
      await listedRunning;
    }
  }

  /**
   * A webhook agent's posted result. Ends a deferred run; one that arrives while the POST that started
   * the run is still being answered is kept until that answer (a 202) arrives. False when nothing changed.
   */
  async completeDeferred(row: RunRow, result: DeferredResult): Promise<boolean> {
    if (row.status !== "running") return false;
    if (row.deferred === 1) return this.#endDone(row, resultEnding(row.runId, this.#agent(), result));
    if (this.#executing.has(row.runId)) this.#earlyResults.set(row.runId, result);
    return false;
  }

  /** The session's agent as configured now. */
  #agent(): AgentConfig | undefined {
    const record = liveRecord(this.#sql);
    return record ? findAgent(sessionConfig(this.#env), record.agentId) : undefined;
  }

  /**
   * Ends a run that finished `ok`. A sub-agent whose task still has work outstanding waits for it
   * instead of reporting (src/session/runs/outstanding-work.ts). Finding out reads the index and asks the
   * children: a run stopped meanwhile ends as stopped, and one ended meanwhile (a repeated result) is
   * left alone.
   */
  async #endDone(row: RunRow, ending: RunEnding, signal?: AbortSignal): Promise<boolean> {
    const waits = await mustWait(this.#env, sessionConfig(this.#env), this.#sql, row, ending);
    const current = findRun(this.#sql, row.runId);
    if (current?.status !== "running") return false;
    if (signal?.aborted) this.end(current, abortedEnding(signal.reason as AbortReason, row, ending.messages));
    else this.end(current, waits ? waitingEnding(row, ending, Date.now()) : ending);
    return true;
  }

  /**
   * Records a run's end with its follow-ups in one transaction (with `alsoWrite`'s writes first), then
   * wakes whoever waits for it.
   */
  end(row: RunRow, ending: RunEnding, alsoWrite?: () => void): void {
    this.#storage.transactionSync(() => {
      alsoWrite?.();
      // A run started by a completion after its task reported sends nothing more upstream.
      const reported = structuredEnding(this.#sql, row, taskEnding(this.#sql, row, ending));
      recordRunEnding(this.#sql, sessionConfig(this.#env), row, reported);
      const agent = this.#agent();
      if (agent) addUsageReport(this.#sql, agent.id, agent.budget, row.runId, reported, Date.now());
      const record = liveRecord(this.#sql);
      if (record) addCronRunReport(this.#sql, record, row, reported, Date.now());
      // A message steered in after the runtime's last look is answered by a turn of its own (runQueued
      // picks it up next); a killed or failed run's steering just stays in the transcript.
      if (reported.status === "ok") queueSteeringFollowUp(this.#sql, row, Date.now());
      clearSteering(this.#sql, row.runId);
      addIndexSync(this.#sql);
    });
    this.#waiters.wake(row.runId);
  }
}
