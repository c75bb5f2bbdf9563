import {
  type AdmittedCollector,
  type CollectorAdmission,
  type CollectorResult,
  type CollectorSnapshot,
  notFound,
  type Result,
} from "../api";
import { liveRecord, readRecord } from "../record/record";
import { RunWaiters } from "../run-waiters";
import {
  admitCollector,
  cancelQueuedCollectors,
  collectorSnapshot,
  takeCollectorResult,
} from "../store/collector-store";
import { findRun } from "../store/run-store";
import { writeCreation } from "../writes/writes";

/**
 * The requester's side of collectors (SPEC §15): admission, results, agents_wait. Writes go through
 * `write` (the object's one transaction, then its outbox: a member's start is an outbox entry); waits
 * park here, in memory, and are woken by a result's arrival.
 */
export class Collectors {
  readonly #sql: SqlStorage;
  readonly #write: <T>(write: () => T) => Promise<T>;
  /** Parked agents_wait calls: each is woken by any member's end, then reads its own runs again. */
  readonly #waiters = new RunWaiters();

  /** Whether a run executing here was told to stop (killed) and has not ended yet. */
  readonly #stopping: (runId: string) => boolean;

  constructor(
    sql: SqlStorage,
    write: <T>(write: () => T) => Promise<T>,
    stopping: (runId: string) => boolean,
  ) {
    this.#sql = sql;
    this.#write = write;
    this.#stopping = stopping;
  }

  /**
   * Counting and admitting in one transaction: concurrent spawns never pass a cap together. A requester
   * whose spawning run has ended or is being stopped, or was deleted under it, admits nothing: a member
   * admitted then would escape the kill's (or the deletion's) cancel and start later, or never be
   * released. A requester outside a run with no live record is created (never written, or deleted
   * before this call: a new session, with no members), as the plain spawn it could make needs none.
   */
  async admit(admission: CollectorAdmission): Promise<Result<AdmittedCollector>> {
    return this.#write((): Result<AdmittedCollector> => {
      if (!liveRecord(this.#sql)) {
        // Only a requester outside a run: a run's session being gone means the run was ended with it.
        const { requester } = admission;
        if (!requester || admission.requesterRunId !== undefined) return notFound();
        writeCreation(this.#sql, requester, Date.now());
      }
      const runId = admission.requesterRunId;
      if (runId !== undefined && !this.#runActive(runId))
        return { ok: false, code: "conflict", message: `requester run ${runId} has ended` };
      const answer = admitCollector(this.#sql, admission, Date.now());
      return "refused" in answer
        ? { ok: false, code: "forbidden", message: answer.refused }
        : { ok: true, value: answer };
    });
  }

  #runActive(runId: string): boolean {
    const status = findRun(this.#sql, runId)?.status;
    return (status === "queued" || status === "running") && !this.#stopping(runId);
  }

  /** A requester deleted (or never written, with no such member) takes nothing: the sender fails the record. */
  async take(result: CollectorResult): Promise<Result<{ taken: boolean }>> {
    if (readRecord(this.#sql)?.deletedAt !== undefined) return notFound();
    const taken = await this.#write(() => takeCollectorResult(this.#sql, result, Date.now()));
    if (!taken && !liveRecord(this.#sql) && collectorSnapshot(this.#sql, [result.runId]).unknown.length > 0)
      return notFound();
    if (taken) this.ended([result.runId]);
    return { ok: true, value: { taken } };
  }

  async cancel(runIds?: string[]): Promise<Result<{ cancelled: string[] }>> {
    const cancelled = await this.#write(() => cancelQueuedCollectors(this.#sql, Date.now(), runIds));
    this.ended(cancelled);
    return { ok: true, value: { cancelled } };
  }

  /** Answers once any requested run has ended (or none is pending here), else at the timeout. */
  async wait(runIds: string[], timeoutMs: number): Promise<Result<CollectorSnapshot>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const snapshot = collectorSnapshot(this.#sql, runIds);
      const left = deadline - Date.now();
      if (snapshot.completed.length > 0 || snapshot.pending.length === 0 || left <= 0)
        return { ok: true, value: snapshot };
      await this.#waiters.waitForAnyEnd(left);
    }
  }

  /** Wakes every parked agents_wait: these members ended (a result taken, a cancel, a failed release). */
  ended(runIds: readonly string[]): void {
    for (const runId of runIds) this.#waiters.wake(runId);
  }
}
