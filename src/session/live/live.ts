import { notFound, type Result } from "../api";
import type { RunProgressPost, StateChanges } from "../api/api-events";
import { sessionConfig } from "../config";
import type { Outbox } from "../outbox/outbox";
import { liveRecord } from "../record/record";
import { stateChanges } from "../store/event-log";
import { findRun } from "../store/run-store";
import { writeRunProgress } from "../store/run-stream";
import { acknowledgeWatch, registerWatcher } from "../store/watchers";
import { EventFeed } from "./event-feed";
import { type WatchNotice, writeWatchNotice } from "./watch-notice";

/**
 * The session's live side (SPEC §13, §14): reading its changes, watch cursors and notices, what a run
 * streams beyond its events, and the open stream connections. A part of the session object; like the
 * others it writes in one transaction and delivers what it owes through the outbox (`Outbox.flush`).
 */
export class Live {
  readonly #storage: DurableObjectStorage;
  readonly #sql: SqlStorage;
  readonly #env: Env;
  readonly #outbox: Outbox;
  readonly #feed: EventFeed;

  constructor(storage: DurableObjectStorage, env: Env, outbox: Outbox) {
    this.#storage = storage;
    this.#sql = storage.sql;
    this.#env = env;
    this.#outbox = outbox;
    this.#feed = new EventFeed(storage.sql);
  }

  /** Read by a watcher, the answer also acknowledges its notice (a fresh one may go out with it). */
  async changes(since: number, watcherKey?: string): Promise<Result<StateChanges>> {
    const record = liveRecord(this.#sql);
    if (!record) return notFound();
    if (watcherKey === undefined) return { ok: true, value: stateChanges(this.#sql, since) };
    const { changes, raised } = this.#storage.transactionSync(() => {
      const changes = stateChanges(this.#sql, since);
      return { changes, raised: acknowledgeWatch(this.#sql, record.sessionKey, watcherKey, since, changes) };
    });
    if (raised) await this.#outbox.flush();
    return { ok: true, value: changes };
  }

  async watch(watcherKey: string): Promise<Result<{ watched: boolean }>> {
    const record = liveRecord(this.#sql);
    if (!record) return notFound();
    if (watcherKey === record.sessionKey) return { ok: true, value: { watched: false } };
    this.#storage.transactionSync(() =>
      registerWatcher(this.#sql, watcherKey, record.stateVersion ?? 0, Date.now()),
    );
    return { ok: true, value: { watched: true } };
  }

  async watchNotice(notice: WatchNotice): Promise<Result<{ taken: "appended" | "duplicate" | "archived" }>> {
    const record = liveRecord(this.#sql);
    // A watcher registered before this session was created was an earlier session of its key (deleted
    // since): its notices never reach this one (SPEC §23), and the watched session drops the watcher.
    if (!record || (notice.since !== undefined && notice.since < record.createdAt)) return notFound();
    const config = sessionConfig(this.#env);
    const taken = this.#storage.transactionSync(() =>
      writeWatchNotice(this.#sql, record, config, notice, Date.now()),
    );
    await this.#outbox.flush();
    return { ok: true, value: { taken } };
  }

  postRunProgress(runId: string, progress: RunProgressPost): Result<{ accepted: true }> {
    if (!liveRecord(this.#sql)) return notFound();
    const run = findRun(this.#sql, runId);
    if (!run) return { ok: false, code: "not_found", message: "run not found" };
    if (run.status !== "running")
      return { ok: false, code: "conflict", message: `run ${runId} is ${run.status}, not running` };
    this.#storage.transactionSync(() => writeRunProgress(this.#sql, runId, progress, Date.now()));
    return { ok: true, value: { accepted: true } };
  }

  /** The session was deleted: its open streams end. */
  closeStreams(): void {
    this.#feed.closeAll();
  }

  /** A live stream (SPEC §14), forwarded by the Worker once it checked the caller's access. */
  open(request: Request): Response {
    return this.#feed.open(request);
  }
}
