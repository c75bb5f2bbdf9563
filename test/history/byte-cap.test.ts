import { describe, expect, it } from "vitest";
import {
  capByBytes as capItemsByBytes,
  jsonBytes,
  MAX_HISTORY_BYTES,
  OVERSIZE_PLACEHOLDER_TEXT,
  oversizePlaceholder,
} from "../../src/history/byte-cap";
import type { TranscriptMessage } from "../../src/transcript/message";

/** capByBytes over messages, measured by their JSON (as a page of messages made safe on read is). */
function capByBytes(newestFirst: Iterable<TranscriptMessage>, maxBytes = MAX_HISTORY_BYTES) {
  const { items, ...rest } = capItemsByBytes(newestFirst, maxBytes, jsonBytes, oversizePlaceholder);
  return { messages: items, ...rest };
}

function textMessage(id: string, text: string): TranscriptMessage {
  return { id, role: "assistant", content: [{ type: "text", text }], timestamp: Number(id.slice(1)) };
}

/** An iterable that fails the test if it is read past `allowed` items. */
function strictSource(items: TranscriptMessage[], allowed: number): Iterable<TranscriptMessage> {
  return {
    *[Symbol.iterator]() {
      for (const [index, item] of items.entries()) {
        if (index >= allowed) throw new Error(`pulled item ${index}, allowed ${allowed}`);
        yield item;
      }
    },
  };
}

describe("jsonBytes", () => {
  it("counts UTF-8 bytes of the JSON", () => {
    expect(jsonBytes("é")).toBe(4); // quotes + 2-byte é
    expect(jsonBytes({ a: "😀" })).toBe(JSON.stringify({ a: "" }).length + 4);
  });
});

describe("capByBytes", () => {
  it("is 80 KiB by default", () => {
    expect(MAX_HISTORY_BYTES).toBe(81920);
  });

  it("counts bytes as 2 + Σ bytes(message) + (n − 1), the length of the JSON array", () => {
    const newestFirst = [textMessage("m3", "ccc é"), textMessage("m2", "bb"), textMessage("m1", "a")];
    const result = capByBytes(newestFirst);
    const sum = newestFirst.reduce((total, item) => total + jsonBytes(item), 0);
    expect(result.bytes).toBe(2 + sum + 2);
    expect(result.bytes).toBe(jsonBytes(result.messages));
    expect(result.droppedMessages).toBe(0);
    expect(result.messages.map((item) => item.id)).toEqual(["m1", "m2", "m3"]);
  });

  it("counts an empty array as 2 bytes", () => {
    expect(capByBytes([])).toEqual({ messages: [], droppedMessages: 0, bytes: 2 });
  });

  it("drops the oldest first when the cap is exceeded", () => {
    const newestFirst = [
      textMessage("m4", "d"),
      textMessage("m3", "c"),
      textMessage("m2", "b"),
      textMessage("m1", "a"),
    ];
    const one = jsonBytes(newestFirst[0]);
    // Room for exactly two messages: 2 + 2 × one + 1 comma.
    const result = capByBytes(newestFirst, 2 + 2 * one + 1);
    expect(result.messages.map((item) => item.id)).toEqual(["m3", "m4"]);
    expect(result.bytes).toBe(2 + 2 * one + 1);
    expect(result.droppedMessages).toBe(1);
  });

  it("is exact at the boundary: one byte less drops another message", () => {
    const newestFirst = [textMessage("m2", "b"), textMessage("m1", "a")];
    const one = jsonBytes(newestFirst[0]);
    expect(capByBytes(newestFirst, 2 + 2 * one + 1).messages).toHaveLength(2);
    expect(capByBytes(newestFirst, 2 + 2 * one).messages.map((item) => item.id)).toEqual(["m2"]);
  });

  it("keeps the newest message when it fits alone", () => {
    const newestFirst = [textMessage("m2", "x".repeat(50)), textMessage("m1", "a")];
    const result = capByBytes(newestFirst, 2 + jsonBytes(newestFirst[0]));
    expect(result.messages.map((item) => item.id)).toEqual(["m2"]);
    expect(result.droppedMessages).toBe(1);
  });

  it("returns a placeholder when the newest message alone is too large", () => {
    const huge = { ...textMessage("m9", "x".repeat(90_000)), provenance: { kind: "system" as const } };
    const result = capByBytes([huge, textMessage("m8", "small")]);
    const placeholder = {
      id: "m9",
      role: "assistant",
      content: [{ type: "text", text: OVERSIZE_PLACEHOLDER_TEXT }],
      timestamp: 9,
    };
    expect(result).toEqual({
      messages: [placeholder],
      droppedMessages: 1,
      bytes: 2 + jsonBytes(placeholder),
    });
  });

  it("reads lazily: at most one item past the last one kept", () => {
    const newestFirst = Array.from({ length: 10 }, (_, index) => textMessage(`m${10 - index}`, "x"));
    const one = jsonBytes(newestFirst[0]);
    const room = 2 + 3 * one + 2;
    const result = capByBytes(strictSource(newestFirst, 4), room);
    expect(result.messages.map((item) => item.id)).toEqual(["m8", "m9", "m10"]);
    expect(result.droppedMessages).toBe(1);
    expect(() => capByBytes(strictSource(newestFirst, 3), room)).toThrow("pulled item 3");
  });

  it("reads nothing past an oversize newest message", () => {
    const newestFirst = [textMessage("m2", "x".repeat(200)), textMessage("m1", "a")];
    const result = capByBytes(strictSource(newestFirst, 1), 100);
    expect(result.messages).toHaveLength(1);
    expect(result.droppedMessages).toBe(1);
  });
});
