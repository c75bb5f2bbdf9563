import { describe, expect, it } from "vitest";
import { splitMessage } from "../../src/platforms/split";

/** The text with all whitespace runs as one space: what the parts must give back, joined. */
const squeezed = (text: string) => text.replace(/\s+/g, " ").trim();

/** Each part within the limit, and the parts, joined, the original but for whitespace at the cuts. */
function expectFaithful(text: string, limit: number): string[] {
  const parts = splitMessage(text, limit);
  for (const part of parts) expect(part.length).toBeLessThanOrEqual(limit);
  expect(squeezed(parts.join(" "))).toBe(squeezed(text));
  return parts;
}

const sentence = (n: number) => `Sentence number ${n} says a little something.`;

describe("splitting a long reply (SPEC §21)", () => {
  it("leaves a text within the limit whole", () => {
    expect(splitMessage("short\n\nreply", 50)).toEqual(["short\n\nreply"]);
  });

  it("packs whole paragraphs into parts and cuts between them", () => {
    const paragraphs = ["A".repeat(40), "B".repeat(40), "C".repeat(40), "D".repeat(40)];
    const parts = expectFaithful(paragraphs.join("\n\n"), 100);
    expect(parts).toEqual([`${paragraphs[0]}\n\n${paragraphs[1]}`, `${paragraphs[2]}\n\n${paragraphs[3]}`]);
  });

  it("cuts a paragraph longer than the limit after its last sentence before it", () => {
    const paragraph = Array.from({ length: 10 }, (_, i) => sentence(i)).join(" ");
    const parts = expectFaithful(paragraph, 100);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) expect(part).toMatch(/\.$/);
    expect(parts[0]).toBe(`${sentence(0)} ${sentence(1)}`);
  });

  it("cuts a sentence longer than the limit at its last word boundary before it", () => {
    const words = Array.from({ length: 60 }, (_, i) => `word${i}`).join(" ");
    const parts = expectFaithful(words, 50);
    for (const part of parts) expect(part).toMatch(/^word\d+( word\d+)*$/);
  });

  it("cuts a word longer than the limit hard, never inside a surrogate pair", () => {
    const text = "😀".repeat(30);
    const parts = splitMessage(text, 9);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(9);
      expect(part).toMatch(/^(😀)+$/);
    }
    expect(parts.join("")).toBe(text);
  });

  it("closes a code block split across parts and reopens it with its fence", () => {
    const lines = Array.from({ length: 30 }, (_, i) => `  line ${i} of the code;`);
    const text = `Here is code:\n\n\`\`\`ts\n${lines.join("\n")}\n\`\`\`\n\nThat was it.`;
    const parts = splitMessage(text, 200);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(200);
    const coded = parts.filter((part) => part.includes("line "));
    expect(coded.length).toBeGreaterThan(1);
    for (const part of coded) {
      expect(part).toMatch(/```ts\n/);
      expect(part).toMatch(/\n```$|\n```\n/);
    }
    // Without the fences it added, the parts give the code back line for line, in order.
    const codeLines = parts
      .join("\n")
      .split("\n")
      .filter((line) => line.startsWith("  line "));
    expect(codeLines).toEqual(lines);
    expect(parts[0]?.startsWith("Here is code:")).toBe(true);
    expect(parts.at(-1)?.endsWith("That was it.")).toBe(true);
  });

  it("never leaves a part over the limit, whatever the mix", () => {
    const text = [
      "# Title",
      sentence(1).repeat(20),
      "```\n" + "x = 1\n".repeat(200) + "```",
      "- a list item\n- another",
      "word ".repeat(500),
    ].join("\n\n");
    for (const limit of [100, 2000, 4000, 4096]) expectFaithful(text.replace(/```\n?/g, ""), limit);
    for (const limit of [100, 2000])
      for (const part of splitMessage(text, limit)) expect(part.length).toBeLessThanOrEqual(limit);
  });
});
