import type { DeliveryResult } from "../queue/delivery-result";

/**
 * What the platform senders share: one API call with the token kept out of every error, the outcome
 * of a call, and the loop that sends a reply's parts in order from the first one not yet out.
 */

/** How one call to a platform's API went. `format_rejected`: its Markdown was refused; send it plain. */
export type CallOutcome =
  | { kind: "ok"; json: Record<string, unknown> }
  | { kind: "format_rejected"; reason: string }
  | { kind: "retry"; reason: string; retryAt?: number }
  | { kind: "permanent"; reason: string };

/**
 * A platform's answer, read once: its status, headers and JSON body (`{}` when it has none or it is an
 * array, which `list` then holds: Discord answers a list of commands so).
 */
export type ApiAnswer = {
  status: number;
  headers: Headers;
  json: Record<string, unknown>;
  list?: unknown[];
};

/** `text` with every secret in it replaced: a token rides in Telegram's URL, which an error may quote. */
export function masked(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret) out = out.split(secret).join("<redacted>");
  return out;
}

/** One JSON call to a platform; a network failure is a retry whose reason never carries a secret. */
export async function callApi(
  url: string,
  init: { method: string; headers: Record<string, string>; body?: unknown; signal?: AbortSignal },
  secrets: readonly string[],
): Promise<ApiAnswer | { kind: "retry"; reason: string }> {
  try {
    const response = await fetch(url, {
      method: init.method,
      headers: { "Content-Type": "application/json; charset=utf-8", ...init.headers },
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
      ...(init.signal ? { signal: init.signal } : {}),
    });
    const text = await response.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : {};
    } catch {
      json = { description: text.slice(0, 200) };
    }
    const body = typeof json === "object" && json !== null && !Array.isArray(json) ? json : {};
    return {
      status: response.status,
      headers: response.headers,
      json: body as Record<string, unknown>,
      ...(Array.isArray(json) ? { list: json } : {}),
    };
  } catch (cause) {
    const why = cause instanceof Error ? cause.message : String(cause);
    return { kind: "retry", reason: masked(`platform API unreachable: ${why}`, secrets) };
  }
}

/** Seconds as a time to try again at, rounded up so the attempt is never early. */
export const retryAtAfter = (seconds: unknown, now = Date.now()): number | undefined =>
  typeof seconds === "number" && Number.isFinite(seconds) && seconds >= 0
    ? now + Math.ceil(seconds * 1000)
    : typeof seconds === "string" && /^\d+(\.\d+)?$/.test(seconds.trim())
      ? now + Math.ceil(Number(seconds) * 1000)
      : undefined;

/** An answer's outcome by its status alone: 429 and 5xx (and 408) are worth retrying, other 4xx never. */
export function outcomeByStatus(status: number, reason: string, retryAt?: number): CallOutcome {
  if (status === 429) return { kind: "retry", reason, ...(retryAt !== undefined ? { retryAt } : {}) };
  if (status === 408 || status >= 500) return { kind: "retry", reason };
  return { kind: "permanent", reason };
}

/**
 * Sends `parts` in order, starting after the `sent` already out (an earlier attempt's), and stops at the
 * first that fails: what went out is counted in the result, so a retry resumes at the failed part.
 */
export async function sendParts(
  parts: readonly string[],
  sent: number,
  send: (part: string, index: number) => Promise<CallOutcome>,
): Promise<DeliveryResult> {
  for (let index = Math.max(0, sent); index < parts.length; index++) {
    const outcome = await send(parts[index] ?? "", index);
    if (outcome.kind === "ok") continue;
    const progress = index > 0 ? { partsSent: index } : {};
    if (outcome.kind === "retry")
      return {
        kind: "retry",
        reason: outcome.reason,
        ...(outcome.retryAt !== undefined ? { retryAt: outcome.retryAt } : {}),
        ...progress,
      };
    return { kind: "permanent", reason: outcome.reason, ...progress };
  }
  return { kind: "delivered" };
}
