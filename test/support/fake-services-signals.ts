/**
 * What the fake services recorded, and who waits for it: `GET /recorded/<id>` reads a recording now, and
 * `GET /signal/<id>?count=<n>[&marker=<text>]` answers once the n-th request (whose raw body contains
 * `marker`, when given) arrived under `rec-<id>`, so a test waits on the outside call itself instead of
 * polling for it. Part of the Node server (fake-services-server.ts); plain TypeScript, no Node API.
 */

/** One request as `GET /recorded/<id>` answers it. */
export type Recorded = {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  json: unknown;
};

/** A test waiting for `count` requests under one id (those mentioning `marker`). */
type Waiter = { count: number; marker: string; answer: (requests: Recorded[]) => void };

/** A signal nobody answered is a stuck test: it gives up well before the test's own timeout (20 s). */
const SIGNAL_TIMEOUT_MS = 15_000;

/** Recording id → the requests received with `rec-<id>` in their path, oldest first. */
const recordings = new Map<string, Recorded[]>();
const waiters = new Map<string, Set<Waiter>>();

const matching = (id: string, marker: string) =>
  (recordings.get(id) ?? []).filter((request) => request.body.includes(marker));

/** The requests recorded under `id`, oldest first. */
export const recordedUnder = (id: string): Recorded[] => recordings.get(id) ?? [];

/** Records one request under `id` and answers every waiter it completes. */
export function recordRequest(id: string, request: Recorded): void {
  recordings.set(id, [...recordedUnder(id), request]);
  for (const waiter of waiters.get(id) ?? []) {
    const requests = matching(id, waiter.marker);
    if (requests.length >= waiter.count) waiter.answer(requests);
  }
}

/**
 * The requests under `id` mentioning `marker`, once there are at least `count` of them; undefined when
 * they did not arrive in time or the waiting test went away (`gone` is told how to give up, and returns
 * how to stop listening once the waiter is answered).
 */
export function whenRecorded(
  id: string,
  count: number,
  marker: string,
  gone: (giveUp: () => void) => () => void,
): Promise<Recorded[] | undefined> {
  const now = matching(id, marker);
  if (now.length >= count) return Promise.resolve(now);
  return new Promise((resolve) => {
    const waiting = waiters.get(id) ?? new Set<Waiter>();
    waiters.set(id, waiting);
    let finished = false;
    let stopListening = () => {};
    const finish = (requests: Recorded[] | undefined) => {
      // Once only: a give-up coming after the answer must not drop the set that later waiters joined
      // (they would never be answered, and time out with their requests recorded).
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      stopListening();
      waiting.delete(waiter);
      if (waiting.size === 0 && waiters.get(id) === waiting) waiters.delete(id);
      resolve(requests);
    };
    const waiter: Waiter = { count, marker, answer: finish };
    const timer = setTimeout(() => finish(undefined), SIGNAL_TIMEOUT_MS);
    waiting.add(waiter);
    stopListening = gone(() => finish(undefined));
  });
}
