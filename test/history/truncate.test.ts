import { describe, expect, it } from "vitest";
import { MAX_HISTORY_TEXT_CHARS, truncateText } from "../../src/history/truncate";

describe("truncateText", () => {
  it("is 4000 chars", () => {
    expect(MAX_HISTORY_TEXT_CHARS).toBe(4000);
  });

  it("leaves a text of exactly 4000 chars alone", () => {
    const text = "a".repeat(4000);
    expect(truncateText(text)).toEqual({ text, truncated: false });
  });

  it("cuts a 4001-char text to 4000 chars and marks it", () => {
    const result = truncateText(`${"a".repeat(4000)}b`);
    expect(result).toEqual({ text: `${"a".repeat(4000)}\n…(truncated)…`, truncated: true });
  });

  it("cuts before a surrogate pair that would straddle the limit", () => {
    // The emoji's high surrogate is char 3999 (0-based) and its low surrogate char 4000.
    const result = truncateText(`${"a".repeat(3999)}😀tail`);
    expect(result).toEqual({ text: `${"a".repeat(3999)}\n…(truncated)…`, truncated: true });
  });

  it("keeps a surrogate pair that ends exactly at the limit", () => {
    const result = truncateText(`${"a".repeat(3998)}😀tail`);
    expect(result).toEqual({ text: `${"a".repeat(3998)}😀\n…(truncated)…`, truncated: true });
  });
});
