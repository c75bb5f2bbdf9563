/** The waiters' key for "any run of this session" (no runId looks like it). */
const ANY_RUN = "*";

/**
 * The callers waiting for this session's runs to end, in memory only: a waiter of an evicted instance
 * is gone with its caller, who reads the run again after its timeout either way.
 */
export class RunWaiters {
  readonly #waiters = new Map<string, Set<() => void>>();

  /** Resolves when the run ends or `timeoutMs` passes, whichever is first. */
  waitFor(runId: string, timeoutMs: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const waiters = this.#waiters.get(runId) ?? new Set();
      const done = () => {
        clearTimeout(timer);
        waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      waiters.add(done);
      this.#waiters.set(runId, waiters);
    });
  }

  /** Resolves when any run of the session ends or `timeoutMs` passes (a run followed past its yield). */
  waitForAnyEnd(timeoutMs: number): Promise<void> {
    return this.waitFor(ANY_RUN, timeoutMs);
  }

  /** Wakes whoever waits for this run, or for any run. */
  wake(runId: string): void {
    for (const key of [runId, ANY_RUN]) {
      for (const wake of this.#waiters.get(key) ?? []) wake();
      this.#waiters.delete(key);
    }
  }
}
