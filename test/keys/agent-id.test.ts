import { describe, expect, it } from "vitest";
import { AGENT_ID_PATTERN, normalizeAgentId } from "../../src/keys";

describe("normalizeAgentId", () => {
  it("trims and lower-cases a valid id", () => {
    expect(normalizeAgentId("  Research ")).toBe("research");
  });

  it("accepts digits, underscores and hyphens after the first character", () => {
    expect(normalizeAgentId("0ps_team-2")).toBe("0ps_team-2");
  });

  it("accepts exactly 64 characters and rejects 65", () => {
    expect(normalizeAgentId("a".repeat(64))).toBe("a".repeat(64));
    expect(normalizeAgentId("a".repeat(65))).toBeUndefined();
  });

  it.each(["", "   ", "-ops", "_ops", "op s", "ops!", "ops:main", "agent.x"])("rejects %j", (input) => {
    expect(normalizeAgentId(input)).toBeUndefined();
  });
});

describe("AGENT_ID_PATTERN", () => {
  it("is case-sensitive: callers normalize before testing", () => {
    expect(AGENT_ID_PATTERN.test("main")).toBe(true);
    expect(AGENT_ID_PATTERN.test("Main")).toBe(false);
  });
});
