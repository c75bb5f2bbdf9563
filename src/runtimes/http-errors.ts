const EXCERPT_CHARS = 300;

/** A failed HTTP answer as a run error: who answered, the status, and a short body excerpt. */
export async function describeHttpFailure(
  who: string,
  response: Response,
): Promise<{ error: string; retryable: boolean }> {
  const body = (await response.text().catch(() => "")).replace(/\s+/g, " ").trim().slice(0, EXCERPT_CHARS);
  return {
    error: `${who} answered HTTP ${response.status}${body ? `: ${body}` : ""}`,
    // Rate limits and server errors may pass; anything else will fail the same way again.
    retryable: response.status === 429 || response.status >= 500,
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
