import type { Alarm } from "../alarm";
import { nextRunnable } from "../store/run-store";

/**
 * The one loop per instance that executes the session's queued runs in order (Runs.runQueued). The
 * alarm handler runs it, and so do the calls that queue a run that can start at once, instead of
 * waiting for the alarm: the alarm hop costs a storage round trip and a dispatch of its own. A second
 * caller waits for the loop under way; the run's claim (queued → running, in one transaction) keeps a
 * run to one start whoever runs the loop. While it runs, the alarm is its runs' backstop (Alarm.backstop),
 * for an instance that dies meanwhile.
 */
export class RunLoop {
  readonly #storage: DurableObjectStorage;
  readonly #alarm: Alarm;
  /** One pass over the queue: executes runs until none is runnable. */
  readonly #drain: () => Promise<void>;
  #running: Promise<void> | undefined;

  constructor(storage: DurableObjectStorage, alarm: Alarm, drain: () => Promise<void>) {
    this.#storage = storage;
    this.#alarm = alarm;
    this.#drain = drain;
  }

  /** Runs the loop, or waits for the one under way; `first` runs before it (then it is not run). */
  run(first?: () => Promise<void>): Promise<void> {
    this.#running ??= this.#loop(first).finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  /** True when no loop is under way and the queue's next run can start now (not held, not deferred). */
  startable(): boolean {
    const next = nextRunnable(this.#storage.sql);
    return !this.#running && next !== undefined && (next.notBefore ?? 0) <= Date.now();
  }

  /** Starts the loop without waiting for it; once it is done, the alarm is set for what is left. */
  start(first?: () => Promise<void>): void {
    this.run(first)
      .then(() => this.#alarm.rearm())
      .catch((cause) => console.error("session: queued runs failed here; the alarm takes them up", cause));
  }

  async #loop(first?: () => Promise<void>): Promise<void> {
    this.#alarm.backstop(true);
    try {
      await first?.();
      await this.#drain();
    } finally {
      this.#alarm.backstop(false);
    }
  }
}
