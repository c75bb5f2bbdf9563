import {
  APICallError,
  InvalidResponseDataError,
  JSONParseError,
  TypeValidationError,
} from "@ai-sdk/provider";
import type { AnswerWatch } from "./answer-watch";
import { errorExcerpt, retryAfterMs } from "./http-errors";

/** A model call that failed, as a run error; `retryAfterMs` is what the provider asked us to wait. */
export type ModelFailure = { ok: false; error: string; retryable: boolean; retryAfterMs?: number };

/** An answer a runtime's own wire code (under the provider package) refused: its message is the run error. */
export class ModelAnswerError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = "ModelAnswerError";
  }
}

/** Rate limits, server errors and Anthropic's 529 (overloaded) may pass; any other status fails the same again. */
const retryableStatus = (status: number) => status === 429 || status >= 500;

/** An error the provider streamed mid-answer (`{ type, message, statusCode?, isRetryable? }`). */
function streamedError(cause: unknown): { type?: string; message?: string; retryable: boolean } | undefined {
  if (typeof cause !== "object" || cause === null || cause instanceof Error) return undefined;
  const fields = cause as { type?: unknown; message?: unknown; statusCode?: unknown; isRetryable?: unknown };
  const status = typeof fields.statusCode === "number" ? fields.statusCode : undefined;
  return {
    ...(typeof fields.type === "string" ? { type: fields.type } : {}),
    ...(typeof fields.message === "string" ? { message: fields.message } : {}),
    retryable: fields.isRetryable === true || (status !== undefined && retryableStatus(status)),
  };
}

/**
 * Whatever a provider call threw or streamed as its error, as a run failure: an HTTP error names its
 * status and quotes the body; an answer that is not the provider's format says what came back (from the
 * `watch` of the wire); an abort says so; a connection lost before or during the answer is retryable.
 * `secrets` (what the request carried) are masked.
 */
export function describeModelError(
  cause: unknown,
  signal: AbortSignal | undefined,
  secrets: readonly (string | undefined)[],
  watch?: AnswerWatch,
): ModelFailure {
  const quote = (text: string) => errorExcerpt(text, secrets);
  if (signal?.aborted)
    return {
      ok: false,
      error: `model API call aborted: ${String(signal.reason ?? "run ended")}`,
      retryable: false,
    };
  if (cause instanceof ModelAnswerError)
    return { ok: false, error: cause.message, retryable: cause.retryable };
  // A body read that failed mid-answer: the provider may wrap it as an API error of the answer's 200.
  if (watch?.brokeOff !== undefined && !(APICallError.isInstance(cause) && (cause.statusCode ?? 0) >= 400)) {
    const broke = watch.brokeOff;
    return {
      ok: false,
      error: `model API stream broke off: ${quote(broke instanceof Error ? broke.message : String(broke))}`,
      retryable: true,
    };
  }
  if (APICallError.isInstance(cause)) {
    const status = cause.statusCode;
    const body = quote(cause.responseBody ?? cause.message);
    const wait = retryAfterMs(cause.responseHeaders?.["retry-after"]);
    if (status === undefined)
      return { ok: false, error: `model API call failed: ${body}`, retryable: cause.isRetryable };
    return {
      ok: false,
      error: `model API answered HTTP ${status}${body ? `: ${body}` : ""}`,
      retryable: retryableStatus(status),
      ...(wait !== undefined && status === 429 ? { retryAfterMs: wait } : {}),
    };
  }
  if (
    JSONParseError.isInstance(cause) ||
    TypeValidationError.isInstance(cause) ||
    InvalidResponseDataError.isInstance(cause)
  ) {
    const value = JSONParseError.isInstance(cause)
      ? cause.text
      : TypeValidationError.isInstance(cause)
        ? cause.value
        : cause.data;
    const shown =
      watch?.head || (typeof value === "string" ? value : (JSON.stringify(value) ?? String(value)));
    return { ok: false, error: `model API answered something unreadable: ${quote(shown)}`, retryable: false };
  }
  const streamed = streamedError(cause);
  if (streamed) {
    const said = quote([streamed.type, streamed.message].filter(Boolean).join(": "));
    return {
      ok: false,
      error: `model API stream failed${said ? `: ${said}` : ""}`,
      retryable: streamed.retryable,
    };
  }
  const message = quote(cause instanceof Error ? cause.message : String(cause));
  // An answer came and the provider package could not read it: quote what came, not the package's words.
  if (watch?.status !== undefined)
    return {
      ok: false,
      error: `model API answered something unreadable: ${quote(watch.head)}`,
      retryable: false,
    };
  return { ok: false, error: `model API unreachable: ${message}`, retryable: true };
}
