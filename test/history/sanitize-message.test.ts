import { describe, expect, it } from "vitest";
import { base64DecodedLength, sanitizeMessage } from "../../src/history/sanitize-message";
import type { TranscriptMessage } from "../../src/transcript/message";

function message(fields: Partial<TranscriptMessage> & Pick<TranscriptMessage, "role" | "content">) {
  return { id: "m1", timestamp: 1_700_000_000_000, ...fields } as TranscriptMessage;
}

describe("sanitizeMessage: text", () => {
  it("cleans assistant text blocks and string content", () => {
    const blocks = sanitizeMessage(
      message({ role: "assistant", content: [{ type: "text", text: "A<think>x</think>B" }] }),
    );
    expect(blocks.message.content).toEqual([{ type: "text", text: "AB" }]);
    const plain = sanitizeMessage(message({ role: "assistant", content: "<|assistant|>Hi" }));
    expect(plain.message.content).toBe("Hi");
  });

  it("does not clean user text, but redacts it", () => {
    const result = sanitizeMessage(
      message({
        role: "user",
        content: "Use <think>tags</think> with OPENAI_API_KEY=sk-1234567890abcdef1234",
      }),
    );
    expect(result.message.content).toBe("Use <think>tags</think> with OPENAI_API_KEY=sk-123…1234");
    expect(result.contentRedacted).toBe(true);
    expect(result.contentTruncated).toBe(false);
  });

  it("redacts and truncates tool results", () => {
    const long = `token sk-1234567890abcdef1234 ${"x".repeat(5000)}`;
    const result = sanitizeMessage(message({ role: "toolResult", content: [{ type: "text", text: long }] }));
    const [block] = result.message.content;
    expect(block).toEqual({
      type: "text",
      text: `token sk-123…1234 ${"x".repeat(4000 - 18)}\n…(truncated)…`,
    });
    expect(result).toMatchObject({ contentRedacted: true, contentTruncated: true });
  });

  it("reports nothing for a message that needs no change", () => {
    const input = message({ role: "assistant", content: [{ type: "text", text: "hello" }] });
    expect(sanitizeMessage(input)).toEqual({
      message: input,
      contentTruncated: false,
      contentRedacted: false,
    });
  });
});

describe("sanitizeMessage: removals", () => {
  it("removes usage, cost and details without counting that as truncation (no content was cut)", () => {
    const input = message({
      role: "assistant",
      content: "ok",
      usage: { input: 1 },
      cost: 0.1,
      details: {},
      runId: "r",
    });
    const result = sanitizeMessage(input);
    expect(result.message).toEqual({
      id: "m1",
      role: "assistant",
      content: "ok",
      timestamp: 1_700_000_000_000,
      runId: "r",
    });
    expect(result.contentTruncated).toBe(false);
  });

  it("removes thinking signatures and redacts the thinking", () => {
    const result = sanitizeMessage(
      message({
        role: "assistant",
        content: [
          { type: "thinking", thinking: "password=hunter2", signature: "sig" },
          { type: "thinking", thinking: "plain", thinkingSignature: "sig2" },
        ],
      }),
    );
    expect(result.message.content).toEqual([
      { type: "thinking", thinking: "password=***" },
      { type: "thinking", thinking: "plain" },
    ]);
    // A signature is no content the caller could read: only the redaction is reported.
    expect(result).toMatchObject({ contentTruncated: false, contentRedacted: true });
  });

  it("replaces image data with omitted and the decoded byte count, a cut of content", () => {
    const result = sanitizeMessage(
      message({ role: "user", content: [{ type: "image", data: "aGVsbG8=", mimeType: "image/png" }] }),
    );
    expect(result.message.content).toEqual([
      { type: "image", mimeType: "image/png", omitted: true, bytes: 5 },
    ]);
    expect(result.contentTruncated).toBe(true);
  });

  it("never mutates its input", () => {
    const input = message({
      role: "assistant",
      content: [
        { type: "text", text: "<think>x</think>y" },
        { type: "image", data: "aGk=" },
        { type: "toolCall", name: "exec", arguments: { token: "abc" } },
      ],
      usage: { input: 1 },
    });
    const snapshot = structuredClone(input);
    const result = sanitizeMessage(input);
    expect(input).toEqual(snapshot);
    expect(result.message).not.toBe(input);
  });
});

describe("sanitizeMessage: tool-call arguments", () => {
  it("redacts string leaves and masks credential-named fields whole", () => {
    const result = sanitizeMessage(
      message({
        role: "assistant",
        content: [
          {
            type: "toolCall",
            id: "c1",
            name: "exec",
            arguments: {
              cmd: "curl -H 'Authorization: Bearer abc'",
              env: { API_TOKEN: "t" },
              n: 3,
              list: ["sk-1234567890abcdef1234"],
            },
          },
        ],
      }),
    );
    expect(result.message.content).toEqual([
      {
        type: "toolCall",
        id: "c1",
        name: "exec",
        arguments: {
          cmd: "curl -H 'Authorization: Bearer ***'",
          env: { API_TOKEN: "***" },
          n: 3,
          list: ["sk-123…1234"],
        },
      },
    ]);
    expect(result.contentRedacted).toBe(true);
  });

  it("redacts arguments stored as a JSON string", () => {
    const result = sanitizeMessage(
      message({
        role: "assistant",
        content: [{ type: "toolCall", name: "x", arguments: '{"apiKey":"abc"}' }],
      }),
    );
    expect(result.message.content).toEqual([{ type: "toolCall", name: "x", arguments: '{"apiKey":"***"}' }]);
  });
});

describe("base64DecodedLength", () => {
  it("counts padding and data URLs", () => {
    expect(base64DecodedLength("aGVsbG8=")).toBe(5);
    expect(base64DecodedLength("aGk=")).toBe(2);
    expect(base64DecodedLength("aGVsbG8h")).toBe(6);
    expect(base64DecodedLength("data:image/png;base64,aGVsbG8=")).toBe(5);
  });
});
