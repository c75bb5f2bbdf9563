import { BOOKMARK_HEADER } from "./bookmarks.ts";
import { errorFromResponse, networkError, SwitchboardError, timeoutError } from "./errors.ts";
import {
  baseUrlOf,
  type ClientOptions,
  DEFAULT_TIMEOUT_MS,
  fetchOf,
  parseJson,
  requestHeaders,
} from "./http.ts";
import { type SseEvent, SseParser } from "./sse.ts";

/** The first pause before reconnecting after a dropped connection; it doubles per failure in a row. */
const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5_000;
/** Failed reconnects in a row before the stream gives up and throws the last error. */
const MAX_FAILURES = 6;

/** One connection of a stream: the first may be a POST (a streamed send); reconnects are GETs. */
export interface StreamRequest {
  method: "GET" | "POST";
  path: string;
  body?: unknown;
}

export interface ResumableStream {
  /** Names the stream in error messages. */
  what: string;
  /** The request of the next connection, given the last id seen (undefined before any). */
  request: (lastEventId: string | undefined) => StreamRequest;
  /** True for the frame after which the stream is complete (a run's terminal item). */
  isLast?: (frame: SseEvent) => boolean;
  signal: AbortSignal | undefined;
}

/** How one connection ended. */
type Ending = "complete" | "closed" | "dropped" | "aborted";

const pause = (ms: number, signal: AbortSignal | undefined) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done);
  });

/** Worth another try: no answer, or a server error; a 4xx (gone, forbidden) will not change. */
const retryable = (error: unknown) =>
  error instanceof SwitchboardError && (error.status === 0 || error.status >= 500);

/**
 * The frames of an event stream that resumes itself: when the server ends a connection with a `close`
 * frame, or the connection drops, it reconnects with `Last-Event-ID` (after a pause that grows while
 * reconnects fail) and goes on where it was. A refusal before the first connection is thrown as the
 * client's usual error. Ends at the last frame, on abort, or when the caller stops iterating.
 */
export async function* resumableStream(
  options: ClientOptions,
  stream: ResumableStream,
): AsyncGenerator<SseEvent> {
  const { signal } = stream;
  let lastEventId: string | undefined;
  let connected = false;
  let failures = 0;
  while (!signal?.aborted) {
    let body: ReadableStream<Uint8Array>;
    try {
      body = await open(options, stream, stream.request(lastEventId), lastEventId);
    } catch (error) {
      if (signal?.aborted) return;
      if (!connected || !retryable(error) || ++failures > MAX_FAILURES) throw error;
      await pause(Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** (failures - 1)), signal);
      continue;
    }
    connected = true;
    const reader = body.getReader();
    const stop = () => void reader.cancel().catch(() => {});
    signal?.addEventListener("abort", stop);
    const parser = new SseParser();
    const decoder = new TextDecoder();
    let ending: Ending = "dropped";
    try {
      reading: for (;;) {
        const { done, value } = await reader.read();
        if (signal?.aborted) {
          ending = "aborted";
          break;
        }
        if (done) break;
        for (const frame of parser.push(decoder.decode(value, { stream: true }))) {
          if (frame.event === "close") {
            // The server's own end (its lifetime, a slow reader): it says where to resume.
            const said = (parseJson(frame.data) as { lastEventId?: unknown } | undefined)?.lastEventId;
            if (said !== undefined && said !== null) lastEventId = String(said);
            ending = "closed";
            break reading;
          }
          if (frame.id !== undefined && frame.event !== "gap") lastEventId = frame.id;
          failures = 0;
          yield frame;
          if (stream.isLast?.(frame)) {
            ending = "complete";
            break reading;
          }
        }
      }
    } catch {
      // A read error is a dropped connection (or the abort that cancelled it): resumed below.
      if (signal?.aborted) ending = "aborted";
    } finally {
      signal?.removeEventListener("abort", stop);
      await reader.cancel().catch(() => {});
    }
    if (ending === "complete" || ending === "aborted") return;
    if (ending === "dropped") {
      if (++failures > MAX_FAILURES)
        throw networkError(baseUrlOf(options), new Error(`${stream.what}: the stream kept dropping`));
      await pause(Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** (failures - 1)), signal);
    }
  }
}

/** One connection: the response body once the headers arrived, or the client's usual error. */
async function open(
  options: ClientOptions,
  stream: ResumableStream,
  spec: StreamRequest,
  lastEventId: string | undefined,
): Promise<ReadableStream<Uint8Array>> {
  const baseUrl = baseUrlOf(options);
  const headers = requestHeaders(options, "text/event-stream", spec.body !== undefined);
  if (lastEventId !== undefined && spec.method === "GET") headers["Last-Event-ID"] = lastEventId;
  // The timeout covers the wait for the headers only: a stream stays open as long as it has events.
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const headersTimeout = new AbortController();
  const timer = setTimeout(
    () => headersTimeout.abort(new DOMException("timed out", "TimeoutError")),
    timeoutMs,
  );
  const signals = stream.signal ? [stream.signal, headersTimeout.signal] : [headersTimeout.signal];
  let response: Response;
  try {
    response = await fetchOf(options)(`${baseUrl}${spec.path}`, {
      method: spec.method,
      headers,
      ...(spec.body !== undefined ? { body: JSON.stringify(spec.body) } : {}),
      signal: AbortSignal.any(signals),
    });
  } catch (error) {
    // An abort by the caller ends the stream quietly (resumableStream checks the signal first).
    throw headersTimeout.signal.aborted
      ? timeoutError(stream.what, timeoutMs, error)
      : networkError(baseUrl, error);
  } finally {
    clearTimeout(timer);
  }
  options.bookmarks?.update(response.headers.get(BOOKMARK_HEADER));
  const isStream = response.headers.get("content-type")?.startsWith("text/event-stream") === true;
  if (!response.ok || !isStream || !response.body) {
    const text = await response.text().catch(() => "");
    if (!response.ok) throw errorFromResponse(response.status, parseJson(text), stream.what);
    throw new SwitchboardError(`${stream.what}: HTTP ${response.status} answered without an event stream`, {
      kind: "http",
      code: "not_event_stream",
      status: response.status,
      serverMessage: text.slice(0, 200),
    });
  }
  return response.body;
}
