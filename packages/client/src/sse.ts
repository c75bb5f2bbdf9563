/**
 * A `text/event-stream` reader after the WHATWG "server-sent events" parsing rules: lines end in CRLF, LF
 * or CR; `:` starts a comment; `data` lines join with "\n"; a blank line ends an event; an event without
 * data is dropped; an unfinished event at the end of the stream is dropped. Reads chunks as they arrive,
 * so a field, a line ending or a UTF-8 character may be split anywhere.
 */

/** One event of a stream. `id` is the last id the stream set (it carries over, as EventSource's does). */
export interface SseEvent {
  event?: string;
  id?: string;
  data: string;
}

/** An incremental parser: feed it text as it arrives, take the events each piece completed. */
export class SseParser {
  #pending = "";
  /** The last piece ended in CR: an LF starting the next piece belongs to that line ending. */
  #afterCr = false;
  #data: string[] = [];
  #event: string | undefined;
  #id: string | undefined;

  /** The events completed by `text`, in order. */
  push(text: string): SseEvent[] {
    const events: SseEvent[] = [];
    if (text === "") return events;
    let start = 0;
    if (this.#afterCr && text.startsWith("\n")) start = 1;
    this.#afterCr = false;
    for (let at = start; at < text.length; at++) {
      const char = text[at];
      if (char !== "\n" && char !== "\r") continue;
      const line = this.#pending + text.slice(start, at);
      this.#pending = "";
      if (char === "\r") {
        if (at + 1 === text.length) this.#afterCr = true;
        else if (text[at + 1] === "\n") at++;
      }
      start = at + 1;
      const event = this.#line(line);
      if (event) events.push(event);
    }
    this.#pending += text.slice(start);
    return events;
  }

  #line(line: string): SseEvent | undefined {
    if (line === "") return this.#dispatch();
    if (line.startsWith(":")) return undefined;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.#data.push(value);
    else if (field === "event") this.#event = value;
    // An id with a NUL is ignored, as the standard says (it could not go back in a Last-Event-ID header).
    else if (field === "id" && !value.includes("\0")) this.#id = value;
    // `retry` and unknown fields are ignored: reconnecting is the caller's business.
    return undefined;
  }

  #dispatch(): SseEvent | undefined {
    const data = this.#data;
    const event = this.#event;
    this.#data = [];
    this.#event = undefined;
    if (data.length === 0) return undefined;
    return {
      ...(event ? { event } : {}),
      ...(this.#id !== undefined ? { id: this.#id } : {}),
      data: data.join("\n"),
    };
  }
}

/**
 * The events of an event-stream body, as they arrive. A read error (a dropped connection, an aborted
 * fetch) is thrown to the caller; the reader is released when the caller stops early.
 */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const parser = new SseParser();
  // TextDecoder drops a leading BOM and keeps a UTF-8 character split across chunks for the next one.
  const decoder = new TextDecoder();
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      yield* parser.push(decoder.decode(value, { stream: true }));
    }
    yield* parser.push(decoder.decode());
  } finally {
    // Stopping early (a `[DONE]` before the end, an abort) must not leave the body locked or half-read.
    await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
