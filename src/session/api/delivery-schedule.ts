/**
 * The one retry schedule of every delivery (SPEC §16, OpenClaw's numbers), the Queue's included:
 * `min(300 s, 15 s · 2^(n−1)) · (1 + U[0, 0.2))` after the n-th failed attempt, until a hard deadline
 * 30 minutes after the first attempt. The jitter keeps a requester that was down for a while from being
 * hit by all its children's retries in the same second.
 */
const FIRST_RETRY_MS = 15_000;
const MAX_RETRY_MS = 300_000;
const JITTER = 0.2;
export const DELIVERY_DEADLINE_MS = 30 * 60_000;
/** A settled record (and a suspended one's payload) is kept this long after its last change. */
export const DELIVERY_KEEP_MS = 7 * 24 * 60 * 60_000;

/** The pause after the `failed`-th failed attempt (1 for the first failure). */
export function retryDelayMs(failed: number, random: () => number = Math.random): number {
  const base = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** (Math.max(1, failed) - 1));
  return Math.round(base * (1 + random() * JITTER));
}

/**
 * When to try again after the `failed`-th failed attempt of a series that began at `firstAttemptAt`:
 * never later than the deadline (one last attempt there), and undefined once it has passed. A platform
 * that said when (`notBefore`, a 429's retry_after) is tried then: never earlier, not held to the schedule.
 */
export function nextAttemptAt(
  failed: number,
  firstAttemptAt: number,
  now: number,
  notBefore?: number,
): number | undefined {
  const deadline = firstAttemptAt + DELIVERY_DEADLINE_MS;
  if (now >= deadline) return undefined;
  if (notBefore !== undefined) return Math.max(now, notBefore);
  return Math.min(now + retryDelayMs(failed), deadline);
}
