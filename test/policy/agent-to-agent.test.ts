import { describe, expect, it } from "vitest";
import { checkAgentToAgent, matchesAgentGlobs, reachableAgents } from "../../src/policy/agent-to-agent";
import { toolsConfig } from "../support";

describe("matchesAgentGlobs", () => {
  it("matches anything with * or an empty list", () => {
    expect(matchesAgentGlobs(["*"], "research")).toBe(true);
    expect(matchesAgentGlobs([], "research")).toBe(true);
    expect(matchesAgentGlobs(["main", "*"], "ops")).toBe(true);
  });

  it("matches exact ids only as a whole", () => {
    expect(matchesAgentGlobs(["main"], "main")).toBe(true);
    expect(matchesAgentGlobs(["main"], "main2")).toBe(false);
    expect(matchesAgentGlobs(["main"], "domain")).toBe(false);
  });

  it("matches prefix, suffix and infix globs", () => {
    expect(matchesAgentGlobs(["res*"], "research")).toBe(true);
    expect(matchesAgentGlobs(["res*"], "res")).toBe(true);
    expect(matchesAgentGlobs(["res*"], "main")).toBe(false);
    expect(matchesAgentGlobs(["*-bot"], "sales-bot")).toBe(true);
    expect(matchesAgentGlobs(["*-bot"], "sales-bots")).toBe(false);
    expect(matchesAgentGlobs(["a*z"], "a-to-z")).toBe(true);
    expect(matchesAgentGlobs(["a*z"], "a-to-y")).toBe(false);
  });

  it("is case-insensitive on both sides and trims patterns", () => {
    expect(matchesAgentGlobs(["Research"], "research")).toBe(true);
    expect(matchesAgentGlobs(["research"], "RESEARCH")).toBe(true);
    expect(matchesAgentGlobs(["RES*"], "Research")).toBe(true);
    expect(matchesAgentGlobs([" main "], "main")).toBe(true);
  });

  it("treats regex characters in patterns literally", () => {
    expect(matchesAgentGlobs(["a.b"], "a.b")).toBe(true);
    expect(matchesAgentGlobs(["a.b"], "axb")).toBe(false);
    expect(matchesAgentGlobs(["ops+"], "opss")).toBe(false);
    expect(matchesAgentGlobs(["(main)"], "main")).toBe(false);
  });
});

describe("checkAgentToAgent", () => {
  it("is forbidden while disabled, naming the setting", () => {
    const result = checkAgentToAgent(toolsConfig({}), "main", "research");
    expect(result.ok).toBe(false);
    expect(result.ok ? "" : result.error).toContain("tools.agentToAgent.enabled=true");
  });

  it("allows any pair when enabled with an empty allow list", () => {
    expect(checkAgentToAgent(toolsConfig({ agentToAgent: { enabled: true } }), "main", "research")).toEqual({
      ok: true,
    });
  });

  it("needs both ids to match allow", () => {
    const config = toolsConfig({ agentToAgent: { enabled: true, allow: ["main", "res*"] } });
    expect(checkAgentToAgent(config, "main", "research")).toEqual({ ok: true });
    expect(checkAgentToAgent(config, "research", "main")).toEqual({ ok: true });
    for (const [from, to] of [
      ["main", "ops"],
      ["ops", "main"],
    ] as const) {
      const result = checkAgentToAgent(config, from, to);
      expect(result.ok).toBe(false);
      expect(result.ok ? "" : result.error).toContain("tools.agentToAgent.allow");
    }
  });
});

describe("reachableAgents", () => {
  it("is only the requester's agent while disabled", () => {
    expect(reachableAgents(toolsConfig({}), "main")).toEqual(["main"]);
  });

  it("lists the requester first, then every allowed agent", () => {
    expect(reachableAgents(toolsConfig({ agentToAgent: { enabled: true } }), "research")).toEqual([
      "research",
      "main",
      "ops",
    ]);
    const config = toolsConfig({ agentToAgent: { enabled: true, allow: ["main", "ops"] } });
    expect(reachableAgents(config, "main")).toEqual(["main", "ops"]);
  });
});
