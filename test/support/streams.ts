import { exports } from "cloudflare:workers";
import { readSse } from "../../src/sse/reader";
import { ADMIN } from "./auth";
import { BASE_URL } from "./http";

/** One event of a stream as a test reads it: its name, id and parsed data. */
export interface StreamEvent<Data = Record<string, unknown>> {
  event: string;
  id?: string;
  data: Data;
}

/** An open event stream over the Worker's real HTTP surface, read one event at a time. */
export interface OpenStream {
  status: number;
  contentType: string | null;
  /** The body of a refused request. */
  error?: unknown;
  /** The next event; fails after `timeoutMs` (the stream stays usable only if it did not). */
  next(timeoutMs?: number): Promise<StreamEvent>;
  /** Events until one matches (included), failing after `timeoutMs`. */
  until(match: (event: StreamEvent) => boolean, timeoutMs?: number): Promise<StreamEvent[]>;
  /** True once the server ended the stream. */
  ended(timeoutMs?: number): Promise<boolean>;
  close(): Promise<void>;
}

/** Opens `path` as an event stream (GET, or POST with a JSON body), as the operator unless told. */
export async function openStream(
  path: string,
  options: { token?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<OpenStream> {
  const headers: Record<string, string> = {
    Authorization: `Bearer ${options.token ?? ADMIN}`,
    Accept: "text/event-stream",
    ...options.headers,
  };
  if (options.body !== undefined) headers["Content-Type"] = "application/json";
  const response = await exports.default.fetch(`${BASE_URL}${path}`, {
    method: options.body === undefined ? "GET" : "POST",
    headers,
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  const contentType = response.headers.get("content-type");
  if (!response.ok || !response.body || !contentType?.startsWith("text/event-stream")) {
    const text = await response.text();
    let error: unknown = text;
    try {
      error = JSON.parse(text);
    } catch {
      // not JSON: kept as text
    }
    const refused = () => Promise.reject(new Error(`stream refused: HTTP ${response.status} ${text}`));
    return {
      status: response.status,
      contentType,
      error,
      next: refused,
      until: refused,
      ended: refused,
      close: async () => {},
    };
  }
  const events = readSse(response.body);
  let done = false;
  const read = async (timeoutMs: number): Promise<StreamEvent | undefined> => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no stream event within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      const step = await Promise.race([events.next(), timeout]);
      if (step.done) {
        done = true;
        return undefined;
      }
      return {
        event: step.value.event ?? "message",
        ...(step.value.id !== undefined ? { id: step.value.id } : {}),
        data: JSON.parse(step.value.data),
      };
    } finally {
      if (timer !== null) clearTimeout(timer);
    }
  };
  const stream: OpenStream = {
    status: response.status,
    contentType,
    async next(timeoutMs = 10_000) {
      const event = await read(timeoutMs);
      if (!event) throw new Error("the stream ended");
      return event;
    },
    async until(match, timeoutMs = 10_000) {
      const seen: StreamEvent[] = [];
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const event = await stream.next(Math.max(1, deadline - Date.now()));
        seen.push(event);
        if (match(event)) return seen;
      }
    },
    async ended(timeoutMs = 10_000) {
      if (done) return true;
      return (await read(timeoutMs)) === undefined;
    },
    async close() {
      if (!done) await events.return(undefined);
      done = true;
    },
  };
  return stream;
}
