import type { ClientOptions } from "./http";
import type { SseEvent } from "./sse";
import { resumableStream, type StreamRequest } from "./streams";
import type { RunStreamItem, SessionStreamItem, SessionStreamOptions, StreamOptions } from "./types";

const enc = encodeURIComponent;
const TERMINAL_KINDS = new Set(["run_completed", "run_failed"]);
const isTerminal = (frame: SseEvent) => TERMINAL_KINDS.has(frame.event ?? "");

/** A frame's event with the stream's id for it, which resumes the stream there. */
function withCursor<T>(frame: SseEvent): T {
  return { ...(JSON.parse(frame.data) as object), cursor: frame.id ?? "" } as T;
}

/** `GET /v1/sessions/{key}/events`: the session's events (and gaps), resumed across reconnects. */
export async function* sessionEvents(
  client: ClientOptions,
  sessionKey: string,
  options: SessionStreamOptions = {},
): AsyncGenerator<SessionStreamItem> {
  const query = new URLSearchParams();
  if (options.tree) query.set("tree", "1");
  if (options.raw) query.set("raw", "1");
  const path = `/v1/sessions/${enc(sessionKey)}/events`;
  const frames = resumableStream(client, {
    what: `events of ${sessionKey}`,
    // The first connection starts at `after` (or live); later ones resume from Last-Event-ID.
    request: (lastEventId) => {
      const first = new URLSearchParams(query);
      if (lastEventId === undefined && options.after !== undefined) first.set("after", String(options.after));
      return { method: "GET", path: first.size > 0 ? `${path}?${first}` : path };
    },
    signal: options.signal,
  });
  for await (const frame of frames) {
    // Only where a live stream starts: its id is the cursor a reconnect resumes from.
    if (frame.event === "ready") continue;
    // Neither has an id: a gap says what was pruned, `hidden` how many sessions the credential cannot read.
    if (frame.event === "gap" || frame.event === "hidden")
      yield { kind: frame.event, ...(JSON.parse(frame.data) as object) } as SessionStreamItem;
    else yield withCursor<SessionStreamItem>(frame);
  }
}

/** `GET /v1/runs/{runId}/events`: one run's stream from `after` (default: its start) to its end. */
export function runEvents(
  client: ClientOptions,
  runId: string,
  options: StreamOptions = {},
): AsyncGenerator<RunStreamItem> {
  const path = `/v1/runs/${enc(runId)}/events`;
  return runItems(client, `events of run ${runId}`, options.signal, (lastEventId) => ({
    method: "GET",
    path:
      lastEventId === undefined && options.after !== undefined
        ? `${path}?after=${enc(String(options.after))}`
        : path,
  }));
}

/**
 * A streamed chat.send (`POST /v1/sessions/{key}/messages` with `stream: true`): the run's stream.
 * Sent with an idempotency key (the caller's, or a fresh one), so that a connection lost before the
 * first item can send again without a second run; after it, the run's own stream resumes.
 */
export function sendStreamed(
  client: ClientOptions,
  sessionKey: string,
  text: string,
  options: { idempotencyKey?: string; signal?: AbortSignal } = {},
): AsyncGenerator<RunStreamItem> {
  const idempotencyKey = options.idempotencyKey ?? crypto.randomUUID();
  let runId: string | undefined;
  const items = runItems(client, `send to ${sessionKey}`, options.signal, (lastEventId) =>
    runId === undefined || lastEventId === undefined
      ? {
          method: "POST",
          path: `/v1/sessions/${enc(sessionKey)}/messages`,
          body: { text, idempotencyKey, stream: true },
        }
      : { method: "GET", path: `/v1/runs/${enc(runId)}/events` },
  );
  return (async function* () {
    for await (const item of items) {
      runId = item.runId;
      yield item;
    }
  })();
}

async function* runItems(
  client: ClientOptions,
  what: string,
  signal: AbortSignal | undefined,
  request: (lastEventId: string | undefined) => StreamRequest,
): AsyncGenerator<RunStreamItem> {
  const frames = resumableStream(client, { what, request, isLast: isTerminal, signal });
  for await (const frame of frames) yield withCursor<RunStreamItem>(frame);
}
