import { sanitizeMessage } from "../../history/sanitize-message";
import { grantMessage, withoutOtherKeys } from "../../policy/grant-view";
import { KEEP_ALIVE_MS, SSE_HEADERS, STREAM_LIFETIME_MS, sseComment, sseFrame } from "../../sse/frames";
import type { RunStreamEvent, SessionEvent } from "../api/api-events";
import { liveRecord } from "../record/record";
import { eventsAfter, prunedMax, stateVersion } from "../store/event-log";
import { onEventsWritten } from "../store/feed-wake";
import { findRun } from "../store/run-store";
import { isTerminalKind, runEventsAfter, runStreamHead } from "../store/run-stream";
import { readMessage } from "../transcript/transcript";

/** What one connection may hold unread; beyond it, the reader is fed from the log as it drains. */
const BUFFER_BYTES = 256 * 1024;
/**
 * A reader whose connection has taken nothing for this long while events wait is closed (with a
 * reason); it resumes by reconnecting with an empty buffer. How far behind it is does not matter: the
 * log is its buffer, so a reader that reconnects far behind catches up at its own pace.
 */
export const STALLED_READER_MS = 30_000;
const BATCH = 100;

/**
 * What a connection follows: the session's log, or one run's stream. `confine` (a grant's reader) is
 * the session's own key: other sessions' keys are taken out of what it reads (SPEC §18).
 */
type Source =
  | { type: "session"; raw: boolean; sessionKey?: string; confine?: string }
  | { type: "run"; runId: string; confine?: string };

interface Reader {
  source: Source;
  cursor: number;
  controller: ReadableStreamDefaultController<Uint8Array>;
  timers: ReturnType<typeof setTimeout>[];
  closed: boolean;
  /** An enqueue can call `pull` at once, which pumps again: the inner pump must not resend. */
  pumping: boolean;
  /** The last pump stopped for want of room: the next pull (the reader drained some) resumes it. */
  stalled: boolean;
  /** Since when the connection has had no room, while events waited. */
  stalledSince?: number;
}

/**
 * One pass over the readers (a wake, or a pull): the log's head and runs' heads read once, and each
 * batch of events read and framed once for every reader at the same place (readers of one session
 * mostly are).
 */
interface Pass {
  head: number;
  runHeads: Map<string, number>;
  batches: Map<string, { chunk: Uint8Array; count: number; last: number }>;
}

function jsonError(status: number, code: string, message: string): Response {
  return Response.json({ error: { code, message } }, { status });
}

/**
 * The live readers of one session object's streams (SPEC §14). Readers take no lock: each reads the
 * durable log from its own cursor, at its own pace, when the log grows or when it has room; a reader
 * never delays a write or another reader.
 */
export class EventFeed {
  readonly #sql: SqlStorage;
  readonly #readers = new Set<Reader>();

  constructor(sql: SqlStorage) {
    this.#sql = sql;
    onEventsWritten(sql, () => {
      const pass = this.#pass();
      for (const reader of this.#readers) this.#pump(reader, pass);
    });
  }

  /**
   * `GET /events?after=&raw=&tag=` (the session's log) or `GET /runs/<runId>/events?after=` (one run),
   * as the Worker forwards them once it checked access and the cursor's form; `field` names where the
   * cursor came from (`after` or `Last-Event-ID`), for the error when it lies beyond the head.
   */
  open(request: Request): Response {
    const url = new URL(request.url);
    const record = liveRecord(this.#sql);
    if (!record) return jsonError(404, "not_found", "session not found");
    const given = url.searchParams.get("after");
    const field = url.searchParams.get("field") ?? "after";
    const runMatch = /^\/runs\/([^/]+)\/events$/.exec(url.pathname);
    if (runMatch) {
      const runId = decodeURIComponent(runMatch[1] ?? "");
      if (!findRun(this.#sql, runId)) return jsonError(404, "not_found", "run not found");
      const head = runStreamHead(this.#sql, runId);
      const after = Number(given ?? "0");
      if (after > head)
        return jsonError(
          400,
          "bad_request",
          `${field}: ${after} is beyond the run stream's last event (${head})`,
        );
      return this.#stream(
        { type: "run", runId, ...confinedTo(url, record.sessionKey) },
        after,
        [],
        request.signal,
      );
    }
    if (url.pathname !== "/events") return jsonError(404, "not_found", `no route ${url.pathname}`);
    const version = stateVersion(this.#sql);
    // Without a cursor, a session stream is live only: it starts at the current version.
    const after = given === null ? version : Number(given);
    if (after > version)
      return jsonError(
        400,
        "bad_request",
        `${field}: ${after} is beyond the session's stateVersion (${version})`,
      );
    const pruned = prunedMax(this.#sql);
    const source: Source = {
      type: "session",
      raw: url.searchParams.get("raw") === "1",
      ...(url.searchParams.get("tag") === "1" ? { sessionKey: record.sessionKey } : {}),
      ...confinedTo(url, record.sessionKey),
    };
    // A reader that comes back after events it never saw were pruned is told so before the rest.
    const gap =
      after < pruned
        ? [sseFrame("gap", { after, earliestAvailableSequence: pruned + 1, ...sessionKeyOf(source) })]
        : [];
    // A live-only reader learns where it starts (`ready`, with that id), so a connection dropped before
    // the first event still resumes from there instead of missing what came in between.
    const ready =
      given === null ? [sseFrame("ready", { stateVersion: version, ...sessionKeyOf(source) }, version)] : [];
    return this.#stream(source, Math.max(after, pruned), [...gap, ...ready], request.signal);
  }

  #stream(source: Source, cursor: number, first: Uint8Array[], gone: AbortSignal): Response {
    let reader: Reader | undefined;
    const body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          reader = { source, cursor, controller, timers: [], closed: false, pumping: false, stalled: true };
          for (const frame of first) controller.enqueue(frame);
          const live = reader;
          live.timers.push(
            setInterval(() => this.#keepAlive(live), KEEP_ALIVE_MS),
            setTimeout(() => this.#close(live, "lifetime"), STREAM_LIFETIME_MS),
          );
          this.#readers.add(live);
          // The caller went away (compatibility flag enable_request_signal), where the platform says so:
          // let the reader go now rather than at its next write (a keep-alive at the latest).
          gone.addEventListener("abort", () => this.#close(live));
        },
        // A reader with room is fed by the wakes; only one that ran out of room is resumed here.
        pull: () => {
          if (reader?.stalled) this.#pump(reader, this.#pass());
        },
        cancel: () => {
          if (reader) this.#forget(reader);
        },
      },
      { highWaterMark: BUFFER_BYTES, size: (chunk) => chunk.byteLength },
    );
    return new Response(body, { headers: SSE_HEADERS });
  }

  #pass(): Pass {
    return { head: stateVersion(this.#sql), runHeads: new Map(), batches: new Map() };
  }

  /** The last item of a run's stream, read once per pass. */
  #runHead(pass: Pass, runId: string): number {
    const known = pass.runHeads.get(runId);
    if (known !== undefined) return known;
    const head = runStreamHead(this.#sql, runId);
    pass.runHeads.set(runId, head);
    return head;
  }

  /** Moves a reader forward while it has room; what does not fit waits in the log for its next pull. */
  #pump(reader: Reader, pass: Pass): void {
    if (reader.closed || reader.pumping) return;
    const head = reader.source.type === "run" ? this.#runHead(pass, reader.source.runId) : pass.head;
    if (reader.cursor >= head) return;
    reader.pumping = true;
    try {
      this.#pumpNow(reader, pass, head);
    } finally {
      reader.pumping = false;
    }
  }

  #pumpNow(reader: Reader, pass: Pass, head: number): void {
    if (reader.stalledSince !== undefined && Date.now() - reader.stalledSince > STALLED_READER_MS) {
      this.#close(reader, "slow_reader");
      return;
    }
    reader.stalled = false;
    while (!reader.closed && reader.cursor < head) {
      if ((reader.controller.desiredSize ?? 0) <= 0) {
        reader.stalled = true;
        reader.stalledSince ??= Date.now();
        return;
      }
      reader.stalledSince = undefined;
      const sent =
        reader.source.type === "run"
          ? this.#sendRun(reader, reader.source.runId)
          : this.#sendSession(reader, reader.source, pass);
      if (sent === 0) return;
    }
  }

  #sendSession(reader: Reader, source: Extract<Source, { type: "session" }>, pass: Pass): number {
    // Readers at the same place with the same view share one read and one chunk.
    const key = `${reader.cursor}:${source.raw ? "raw" : "safe"}:${source.sessionKey ?? ""}:${source.confine ?? ""}`;
    let batch = pass.batches.get(key);
    if (!batch) {
      const events = eventsAfter(this.#sql, reader.cursor, BATCH);
      const frames = events.map((event) => sseFrame(event.kind, this.#view(event, source), event.seq));
      batch = { chunk: concat(frames), count: events.length, last: events.at(-1)?.seq ?? reader.cursor };
      pass.batches.set(key, batch);
    }
    if (batch.count === 0) return 0;
    reader.cursor = batch.last;
    reader.controller.enqueue(batch.chunk);
    return batch.count;
  }

  #sendRun(reader: Reader, runId: string): number {
    const items: RunStreamEvent[] = runEventsAfter(this.#sql, runId, reader.cursor, BATCH);
    const { confine } = reader.source;
    for (const item of items) {
      reader.cursor = item.seq;
      const view = confine ? withoutOtherKeys(item, confine, MESSAGE_TEXT_FIELDS) : item;
      reader.controller.enqueue(sseFrame(item.kind, view, item.seq));
      if (isTerminalKind(item.kind)) {
        this.#close(reader);
        break;
      }
    }
    return items.length;
  }

  /** A `message` event carries its message: the safe view of sessions_history, or exactly (`raw`). */
  #view(event: SessionEvent, source: Extract<Source, { type: "session" }>): object {
    const { confine } = source;
    const whole = { ...event, ...sessionKeyOf(source) };
    const tagged = confine ? withoutOtherKeys(whole, confine) : whole;
    const messageId = event.kind === "message" ? event.data?.messageId : undefined;
    if (typeof messageId !== "string") return tagged;
    const message = readMessage(this.#sql, messageId);
    if (!message) return tagged;
    const view = source.raw ? message : sanitizeMessage(message).message;
    return { ...tagged, message: confine ? grantMessage(view, confine) : view };
  }

  #keepAlive(reader: Reader): void {
    if (!reader.closed && (reader.controller.desiredSize ?? 0) > 0)
      reader.controller.enqueue(sseComment("keep-alive"));
  }

  /** Ends a connection; with a reason, the reader is told why first (it resumes with Last-Event-ID). */
  #close(reader: Reader, reason?: "lifetime" | "slow_reader"): void {
    if (reader.closed) return;
    this.#forget(reader);
    try {
      if (reason) reader.controller.enqueue(sseFrame("close", { reason, lastEventId: reader.cursor }));
      reader.controller.close();
    } catch {
      // The stream ended on the reader's side already.
    }
  }

  /** The session was deleted: every connection ends (its runs' streams would never see an end). */
  closeAll(): void {
    for (const reader of [...this.#readers]) this.#close(reader);
  }

  #forget(reader: Reader): void {
    reader.closed = true;
    for (const timer of reader.timers) clearTimeout(timer);
    this.#readers.delete(reader);
  }
}

/** `?confine=1`: the reader is a grant, which sees no other session's key. */
function confinedTo(url: URL, sessionKey: string): { confine?: string } {
  return url.searchParams.get("confine") === "1" ? { confine: sessionKey } : {};
}

/** A run stream's fields that are the reply's own text: a grant reads them as written. */
const MESSAGE_TEXT_FIELDS = ["text", "reply"];

function sessionKeyOf(source: Source): { sessionKey?: string } {
  return source.type === "session" && source.sessionKey ? { sessionKey: source.sessionKey } : {};
}

/** Frames as one chunk: one write down the connection instead of one per event. */
function concat(frames: Uint8Array[]): Uint8Array {
  if (frames.length === 1 && frames[0]) return frames[0];
  const chunk = new Uint8Array(frames.reduce((sum, frame) => sum + frame.byteLength, 0));
  let offset = 0;
  for (const frame of frames) {
    chunk.set(frame, offset);
    offset += frame.byteLength;
  }
  return chunk;
}
