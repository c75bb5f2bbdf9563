import { redactKnownSecrets } from "../history/redact";

const EXCERPT_CHARS = 300;

/**
 * What a run error quotes of text the other side wrote: secrets masked (the runtime's own, which a server
 * may echo back, and any of a known shape), then cut, so no secret is ever cut to an unrecognisable stub.
 */
export function errorExcerpt(text: string, secrets: readonly (string | undefined)[]): string {
  return redactKnownSecrets(text, secrets).replace(/\s+/g, " ").trim().slice(0, EXCERPT_CHARS);
}

/** The longest `retry-after` a run waits for; a longer one is capped (the executor's retries are few). */
export const MAX_RETRY_AFTER_MS = 30_000;

/** `retry-after` in seconds or as an HTTP date, in milliseconds (capped); undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - now;
  if (!Number.isFinite(ms) || ms < 0) return undefined;
  return Math.min(ms, MAX_RETRY_AFTER_MS);
}

/**
 * A failed HTTP answer as a run error: who answered, the status, and a short body excerpt with `secrets`
 * (what the request carried) masked.
 */
export async function describeHttpFailure(
  who: string,
  response: Response,
  secrets: readonly (string | undefined)[],
): Promise<{ error: string; retryable: boolean; retryAfterMs?: number }> {
  const body = errorExcerpt(await response.text().catch(() => ""), secrets);
  const wait =
    response.status === 429 ? retryAfterMs(response.headers.get("retry-after") ?? undefined) : undefined;
  return {
    error: `${who} answered HTTP ${response.status}${body ? `: ${body}` : ""}`,
    // Rate limits and server errors may pass; anything else will fail the same way again.
    retryable: response.status === 429 || response.status >= 500,
    ...(wait !== undefined ? { retryAfterMs: wait } : {}),
  };
}

/** A thrown fetch error as a run error: aborts and timeouts say so. */
export function describeFetchFailure(
  who: string,
  cause: unknown,
  signal: AbortSignal,
): { error: string; retryable: boolean } {
  if (signal.aborted)
    return { error: `${who} call aborted: ${String(signal.reason ?? "run ended")}`, retryable: false };
  const message = cause instanceof Error ? cause.message : String(cause);
  return { error: `${who} unreachable: ${message}`, retryable: true };
}

/**
 * The answer's body parsed as JSON (`undefined` when it is not JSON). A body that cannot be read to the end
 * (the run aborted, the connection dropped) is a fetch failure, not a malformed answer.
 */
export async function readJsonBody(
  who: string,
  response: Response,
  signal: AbortSignal,
): Promise<{ ok: true; json: unknown } | { ok: false; error: string; retryable: boolean }> {
  let text: string;
  try {
    text = await response.text();
  } catch (cause) {
    return { ok: false, ...describeFetchFailure(who, cause, signal) };
  }
  try {
    return { ok: true, json: JSON.parse(text) };
  } catch {
    return { ok: true, json: undefined };
  }
}
