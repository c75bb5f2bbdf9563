import { describe, expect, it } from "vitest";
import * as clientReader from "../../packages/client/src/sse";
import type { SseEvent } from "../../src/sse/reader";
import * as workerReader from "../../src/sse/reader";

declare global {
  interface ImportMeta {
    /** Vite's glob import (the project's types do not include vite/client). */
    glob(
      pattern: string | string[],
      options: { query: "?raw"; import: "default"; eager: true },
    ): Record<string, string>;
  }
}

// The client package ships its own copy of the reader (it carries no server code, and the Worker imports
// nothing from it): the same cases run on both, and the two stay the same code.
const readerSources = import.meta.glob(["../../src/sse/reader.ts", "../../packages/client/src/sse.ts"], {
  query: "?raw",
  import: "default",
  eager: true,
});

/** A file's code without its leading `//` comment lines (where the Worker's copy says it is one). */
const codeOf = (source: string) => source.replace(/^(?:\/\/[^\n]*\n)+\n?/, "");

it("the Worker's reader is the client's, line for line", () => {
  const sources = Object.values(readerSources);
  expect(sources).toHaveLength(2);
  const [worker, client] = sources.map((source) => codeOf(source));
  expect(worker).toBe(client);
});

describe.each([
  { copy: "the client's reader", reader: clientReader },
  { copy: "the Worker's reader", reader: workerReader },
])("$copy", ({ reader: { readSse, SseParser } }) => {
  /** Every event the parser completes when fed `pieces` in order. */
  function parse(pieces: string[]): SseEvent[] {
    const parser = new SseParser();
    return pieces.flatMap((piece) => parser.push(piece));
  }

  /** A body that delivers these byte chunks, then ends (or fails with `error`); `cancelled` once cancelled. */
  function bodyOf(chunks: Uint8Array[], error?: Error): ReadableStream<Uint8Array> & { cancelled: boolean } {
    const state = { cancelled: false };
    let next = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const chunk = chunks[next++];
        if (chunk) controller.enqueue(chunk);
        else if (error) controller.error(error);
        else controller.close();
      },
      cancel() {
        state.cancelled = true;
      },
    });
    return Object.defineProperty(stream, "cancelled", {
      get: () => state.cancelled,
    }) as ReadableStream<Uint8Array> & {
      cancelled: boolean;
    };
  }

  async function collect(body: ReadableStream<Uint8Array>): Promise<SseEvent[]> {
    const events: SseEvent[] = [];
    for await (const event of readSse(body)) events.push(event);
    return events;
  }

  const STREAM = [
    ": a comment, ignored",
    'data: {"n":1}',
    "",
    "event: delta",
    "id: 7",
    "data: first line",
    "data:second line, no space",
    "data:  two spaces keep one",
    "retry: 1000",
    "unknown: field",
    "",
    "id: 8",
    "",
    "event: no-data",
    "",
    "data",
    "",
    "data: [DONE]",
    "",
    "data: unfinished at the end",
  ].join("\n");

  const EXPECTED: SseEvent[] = [
    { data: '{"n":1}' },
    { event: "delta", id: "7", data: "first line\nsecond line, no space\n two spaces keep one" },
    // A block with only an id sets it for later events; `event` lasts one event, `id` carries over.
    { id: "8", data: "" },
    { id: "8", data: "[DONE]" },
  ];

  describe("SseParser", () => {
    it("reads data, event and id fields; skips comments, unknown fields and events without data", () => {
      expect(parse([STREAM])).toEqual(EXPECTED);
    });

    it("reads LF, CRLF and CR line endings alike", () => {
      expect(parse([STREAM.replaceAll("\n", "\r\n")])).toEqual(EXPECTED);
      expect(parse([STREAM.replaceAll("\n", "\r")])).toEqual(EXPECTED);
      expect(parse(["data: a\r\n\ndata: b\r\r\ndata: c\n\r"])).toEqual([
        { data: "a" },
        { data: "b" },
        { data: "c" },
      ]);
    });

    it("gives the same events however the text is split, a CRLF included", () => {
      for (const text of [STREAM, STREAM.replaceAll("\n", "\r\n")]) {
        for (let at = 0; at <= text.length; at++) {
          expect(parse([text.slice(0, at), text.slice(at)])).toEqual(EXPECTED);
        }
        expect(parse(Array.from(text))).toEqual(EXPECTED);
      }
    });

    it("joins a line split across pieces, and completes an event only at its blank line", () => {
      const parser = new SseParser();
      expect(parser.push("da")).toEqual([]);
      expect(parser.push("ta: hel")).toEqual([]);
      expect(parser.push("lo\r")).toEqual([]);
      expect(parser.push("")).toEqual([]);
      // The LF after that CR is the same line ending; the CR after it a blank line, which ends the event.
      expect(parser.push("\n\r")).toEqual([{ data: "hello" }]);
      expect(parser.push("data: one\r")).toEqual([]);
      // This LF belongs to the CR before it: not a blank line, so the event goes on.
      expect(parser.push("\ndata: two\r\n\r\n")).toEqual([{ data: "one\ntwo" }]);
    });
  });

  describe("readSse", () => {
    it("reads events from a byte stream split inside UTF-8 characters, without a leading BOM", async () => {
      const bytes = new TextEncoder().encode("\uFEFFdata: héllo 👋\n\ndata: wörld\n\n");
      const chunks = Array.from(bytes, (byte) => Uint8Array.of(byte));
      expect(await collect(bodyOf(chunks))).toEqual([{ data: "héllo 👋" }, { data: "wörld" }]);
    });

    it("throws a read error to the caller after the events before it", async () => {
      const body = bodyOf([new TextEncoder().encode("data: one\n\ndata: tw")], new Error("connection lost"));
      const events: SseEvent[] = [];
      await expect(async () => {
        for await (const event of readSse(body)) events.push(event);
      }).rejects.toThrow("connection lost");
      expect(events).toEqual([{ data: "one" }]);
    });

    it("cancels the body when the caller stops early", async () => {
      const encoder = new TextEncoder();
      const body = bodyOf([encoder.encode("data: [DONE]\n\n"), encoder.encode("data: never read\n\n")]);
      for await (const event of readSse(body)) {
        expect(event).toEqual({ data: "[DONE]" });
        break;
      }
      expect(body.cancelled).toBe(true);
      expect(body.locked).toBe(false);
    });
  });
});
