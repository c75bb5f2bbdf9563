import { describe, expect, it } from "vitest";
import { reportedBytes } from "../../../src/session/record/index-row";

describe("an object's size as its index row reports it (SPEC §24: the indexed column moves seldom)", () => {
  it("rounds up to an eighth of its power of two, at least a page, never under", () => {
    expect(reportedBytes(0)).toBe(0);
    expect(reportedBytes(1)).toBe(4096);
    expect(reportedBytes(5_000)).toBe(8_192);
    expect(reportedBytes(1_000_000)).toBe(1_048_576);
    for (const bytes of [4_097, 70_000, 123_456_789]) {
      expect(reportedBytes(bytes)).toBeGreaterThanOrEqual(bytes);
      expect(reportedBytes(bytes)).toBeLessThanOrEqual(bytes * 1.125 + 4096);
    }
  });

  it("stays put while a growing session adds a few pages", () => {
    // A session near 200 KB growing by a 4 KiB page a turn: its report moves once in four turns (16 KiB
    // steps), where the exact size moved every turn.
    const sizes = Array.from({ length: 16 }, (_, turn) => 200 * 1024 + turn * 4096);
    expect(new Set(sizes).size).toBe(16);
    expect(new Set(sizes.map(reportedBytes)).size).toBeLessThanOrEqual(5);
  });
});
