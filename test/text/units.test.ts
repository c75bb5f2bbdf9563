import { describe, expect, it } from "vitest";
import { formatAgo, formatUsd } from "../../src/text/units";

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

describe("formatAgo", () => {
  it("reads like a person wrote it, at each boundary", () => {
    const cases: [number, string][] = [
      [-5 * SECOND, "just now"],
      [0, "just now"],
      [MINUTE - 1, "just now"],
      [MINUTE, "1 min ago"],
      [3 * MINUTE + 59 * SECOND, "3 min ago"],
      [HOUR - 1, "59 min ago"],
      [HOUR, "1 h ago"],
      [5 * HOUR + 59 * MINUTE, "5 h ago"],
      [DAY - 1, "23 h ago"],
      [DAY, "1 day ago"],
      [2 * DAY - 1, "1 day ago"],
      [2 * DAY, "2 days ago"],
      [8827 * HOUR + 7 * MINUTE, "367 days ago"],
    ];
    expect(cases.map(([ms]) => formatAgo(ms))).toEqual(cases.map(([, text]) => text));
  });
});

describe("formatUsd", () => {
  it("shows cents from $0.01 up and four decimals below, as OpenClaw's stats line does", () => {
    const cases: [number, string][] = [
      [0, "$0.0000"],
      [0.0032, "$0.0032"],
      [0.00999, "$0.0100"],
      [0.01, "$0.01"],
      [0.256, "$0.26"],
      [12.5, "$12.50"],
    ];
    expect(cases.map(([usd]) => formatUsd(usd))).toEqual(cases.map(([, text]) => text));
  });
});
