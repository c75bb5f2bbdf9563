import { describe, expect, it } from "vitest";
import { matchExpression, queryTerms, SNIPPET_MAX_CHARS, snippetOf } from "../../src/tools/search-snippet";

describe("search snippets and the MATCH expression", () => {
  it("keeps a short text whole and cuts a long one to a window around the first match, … where cut", () => {
    expect(snippetOf("a short text", ["short"])).toBe("a short text");
    const middle = `${"a".repeat(500)} needle ${"b".repeat(500)}`;
    const cut = snippetOf(middle, ["NEEDLE"]);
    expect(cut).toHaveLength(SNIPPET_MAX_CHARS);
    expect(cut.startsWith("…") && cut.endsWith("…")).toBe(true);
    expect(cut).toContain(" needle ");
    // At the start: no leading ellipsis; at the end: no trailing one; both exactly 300 chars.
    const head = snippetOf(`needle ${"x".repeat(400)}`, ["needle"]);
    expect([head.length, head.startsWith("needle"), head.endsWith("…")]).toEqual([300, true, true]);
    const tail = snippetOf(`${"x".repeat(400)} needle`, ["needle"]);
    expect([tail.length, tail.startsWith("…"), tail.endsWith("needle")]).toEqual([300, true, true]);
    // No literal match (a diacritic one): the window starts at the text's beginning.
    expect(snippetOf(`café ${"y".repeat(400)}`, ["cafe"]).startsWith("café")).toBe(true);
  });

  it("never splits a surrogate pair at either cut", () => {
    const emoji = "😀";
    for (let shift = 0; shift < 4; shift++) {
      const text = `${emoji.repeat(150 + shift)}needle${emoji.repeat(150)}`;
      const cut = snippetOf(text, ["needle"]);
      expect(cut.length).toBeLessThanOrEqual(SNIPPET_MAX_CHARS);
      expect(cut).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
    }
  });

  it("quotes every whitespace-separated term (quotes doubled) and requires them all", () => {
    const terms = queryTerms(' deploy  "failed\tnow\u0000x ');
    expect(terms).toEqual(["deploy", '"failed', "now", "x"]);
    expect(matchExpression(terms)).toBe('"deploy" AND """failed" AND "now" AND "x"');
    expect(queryTerms("\u0000\u0001")).toEqual([]);
    // A term without a letter or digit is dropped: FTS5 would read it as an empty phrase matching nothing.
    expect(queryTerms("retry -> backoff - … \u200b 42 é")).toEqual(["retry", "backoff", "42", "é"]);
  });
});
