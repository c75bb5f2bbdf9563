import { describe, expect, it } from "vitest";
import { agentToolPolicy, swarmSettings } from "../../src/config/agents";
import { toolNames } from "../../src/config/schema";
import { allowedTools, applySubagentPolicy, profileToolSet } from "../../src/policy/tool-profiles";
import { configFrom, requesterWith } from "../support";

const sorted = (tools: Iterable<string>) => [...tools].sort();

const SESSION_TOOLS = [
  "agents_list",
  "agents_wait",
  "cron",
  "session_status",
  "sessions",
  "sessions_history",
  "sessions_list",
  "sessions_search",
  "sessions_send",
  "sessions_spawn",
  "sessions_yield",
  "subagents",
];

describe("profiles (SPEC §5.9)", () => {
  it("minimal grants only session_status", () => {
    expect(sorted(profileToolSet("minimal", []))).toEqual(["session_status"]);
  });

  it("coding grants every session tool", () => {
    expect(sorted(profileToolSet("coding", []))).toEqual(SESSION_TOOLS);
  });

  it("messaging grants list, history, search, send, status and sessions, never agents_wait", () => {
    expect(sorted(profileToolSet("messaging", []))).toEqual([
      "session_status",
      "sessions",
      "sessions_history",
      "sessions_list",
      "sessions_search",
      "sessions_send",
    ]);
  });

  it("full grants every session tool; structured_output belongs to no profile (SPEC §19)", () => {
    expect(sorted(profileToolSet("full", []))).toEqual(SESSION_TOOLS);
    expect(sorted(toolNames)).toEqual(sorted([...SESSION_TOOLS, "structured_output"]));
    for (const profile of ["minimal", "coding", "messaging", "full"] as const)
      expect(profileToolSet(profile, []).has("structured_output")).toBe(false);
  });

  it("alsoAllow adds tools back and ignores unknown names", () => {
    expect(sorted(profileToolSet("minimal", ["sessions_list", "exec", "agents_list"]))).toEqual([
      "agents_list",
      "session_status",
      "sessions_list",
    ]);
    expect(sorted(profileToolSet("messaging", ["subagents"]))).toContain("subagents");
  });
});

describe("agentToolPolicy", () => {
  it("takes the agent's profile over tools.profile and merges both alsoAllow lists", () => {
    const config = configFrom({
      tools: { profile: "minimal", alsoAllow: ["sessions_list"] },
      agents: {
        list: [{ id: "main" }, { id: "ops", tools: { profile: "messaging", alsoAllow: ["subagents"] } }],
      },
    });
    expect(agentToolPolicy(config, "main")).toEqual({ profile: "minimal", alsoAllow: ["sessions_list"] });
    expect(agentToolPolicy(config, "ops")).toEqual({
      profile: "messaging",
      alsoAllow: ["sessions_list", "subagents"],
    });
  });
});

describe("allowedTools for top-level sessions", () => {
  it("is the agent's profile plus alsoAllow", () => {
    const config = configFrom({
      tools: { alsoAllow: ["agents_list"] },
      agents: { list: [{ id: "main" }, { id: "ops", tools: { profile: "messaging" } }] },
    });
    expect(sorted(allowedTools(config, requesterWith()))).toEqual(SESSION_TOOLS);
    expect(sorted(allowedTools(config, requesterWith({ agentId: "ops" })))).toEqual([
      "agents_list",
      "session_status",
      "sessions",
      "sessions_history",
      "sessions_list",
      "sessions_search",
      "sessions_send",
    ]);
  });

  it("ignores tools.subagents.tools", () => {
    const config = configFrom({ tools: { subagents: { tools: { deny: ["sessions_list"] } } } });
    expect(allowedTools(config, requesterWith()).has("sessions_list")).toBe(true);
  });
});

describe("sub-agent tool policy (SPEC §5.4)", () => {
  const coding = () => profileToolSet("coding", []);

  it("takes send, status and agents_list from every sub-agent", () => {
    const orchestrator = applySubagentPolicy(coding(), 1, 2, {});
    expect(sorted(orchestrator)).toEqual([
      "agents_wait",
      "sessions",
      "sessions_history",
      "sessions_list",
      "sessions_search",
      "sessions_spawn",
      "sessions_yield",
      "subagents",
    ]);
  });

  it("leaves lose spawn, subagents, list, history, search, sessions and agents_wait too (default maxSpawnDepth 1)", () => {
    const leaf = applySubagentPolicy(coding(), 1, 1, {});
    for (const tool of [
      "sessions_search",
      "agents_wait",
      "sessions_send",
      "session_status",
      "agents_list",
      "sessions_spawn",
      "subagents",
      "sessions_list",
      "sessions_history",
      "sessions",
    ]) {
      expect(leaf.has(tool as never)).toBe(false);
    }
    // ...and sessions_yield, which a leaf (it spawns nothing, so it has no children) could only fail.
    expect(sorted(leaf)).toEqual([]);
  });

  it("treats depth past maxSpawnDepth as a leaf", () => {
    expect(sorted(applySubagentPolicy(coding(), 3, 2, {}))).toEqual([]);
    expect(sorted(applySubagentPolicy(coding(), 2, 2, {}))).toEqual([]);
  });

  it("leaves top-level sessions alone", () => {
    expect(sorted(applySubagentPolicy(coding(), 0, 1, { deny: ["sessions_list"] }))).toEqual(SESSION_TOOLS);
  });

  it("allow restricts to the listed tools, and may grant back a fixed denial", () => {
    expect(
      sorted(applySubagentPolicy(coding(), 1, 2, { allow: ["sessions_list", "sessions_send"] })),
    ).toEqual(["sessions_list", "sessions_send"]);
  });

  it("alsoAllow adds a tool back to a leaf", () => {
    expect(sorted(applySubagentPolicy(coding(), 1, 1, { alsoAllow: ["sessions_history"] }))).toEqual([
      "sessions_history",
    ]);
  });

  it("deny wins over allow and alsoAllow", () => {
    const tools = applySubagentPolicy(coding(), 1, 2, {
      allow: ["sessions_list", "sessions_history"],
      alsoAllow: ["sessions_spawn"],
      deny: ["sessions_list", "sessions_spawn", "sessions_yield"],
    });
    expect(sorted(tools)).toEqual(["sessions_history"]);
  });

  it("never grants a tool the agent's profile does not", () => {
    const messaging = profileToolSet("messaging", []);
    expect(
      sorted(applySubagentPolicy(messaging, 1, 2, { alsoAllow: ["sessions_spawn", "subagents"] })),
    ).toEqual(["sessions", "sessions_history", "sessions_list", "sessions_search"]);
    expect(
      sorted(applySubagentPolicy(messaging, 1, 2, { allow: ["sessions_spawn", "sessions_list"] })),
    ).toEqual(["sessions_list"]);
  });
});

describe("allowedTools for sub-agents", () => {
  const child = requesterWith({ sessionKey: "agent:main:subagent:c1", depth: 1, isSubagent: true });

  it("gives a depth-1 child no session tools by default", () => {
    expect(sorted(allowedTools(configFrom({}), child))).toEqual([]);
  });

  it("gives a depth-1 orchestrator spawn, subagents, list, history, search and agents_wait with maxSpawnDepth 2", () => {
    const config = configFrom({ agents: { defaults: { subagents: { maxSpawnDepth: 2 } } } });
    expect(sorted(allowedTools(config, child))).toEqual([
      "agents_wait",
      "sessions",
      "sessions_history",
      "sessions_list",
      "sessions_search",
      "sessions_spawn",
      "sessions_yield",
      "subagents",
    ]);
    expect(sorted(allowedTools(config, { ...child, depth: 2 }))).toEqual([]);
  });

  it("uses the agent's own maxSpawnDepth", () => {
    const config = configFrom({ agents: { list: [{ id: "main", subagents: { maxSpawnDepth: 2 } }] } });
    expect(allowedTools(config, child).has("sessions_spawn")).toBe(true);
  });

  it("applies tools.subagents.tools, deny winning", () => {
    const config = configFrom({
      tools: {
        subagents: {
          tools: { alsoAllow: ["sessions_list", "sessions_history"], deny: ["sessions_history"] },
        },
      },
    });
    expect(sorted(allowedTools(config, child))).toEqual(["sessions_list"]);
  });

  it("adds structured_output to a collector's run with an outputSchema, whatever the policy says (SPEC §15)", () => {
    const collector = { ...child, runId: "run-1", structuredOutput: true as const };
    const config = configFrom({ tools: { subagents: { tools: { deny: ["structured_output"] } } } });
    expect(sorted(allowedTools(config, collector))).toEqual(["structured_output"]);
    expect(sorted(allowedTools(configFrom({ tools: { profile: "minimal" } }), collector))).toEqual([
      "structured_output",
    ]);
    // Without a run there is nothing to record the result for.
    expect(allowedTools(config, { ...child, structuredOutput: true }).has("structured_output")).toBe(false);
    expect(allowedTools(config, { ...child, runId: "run-1" }).has("structured_output")).toBe(false);
  });

  it("never offers a collector's run sessions_yield: its result is collected at its end", () => {
    const orchestrating = configFrom({ agents: { defaults: { subagents: { maxSpawnDepth: 2 } } } });
    expect(allowedTools(orchestrating, child).has("sessions_yield")).toBe(true);
    const collector = { ...child, runId: "run-1", collector: true as const };
    expect(allowedTools(orchestrating, collector).has("sessions_yield")).toBe(false);
    expect(allowedTools(orchestrating, collector).has("sessions_spawn")).toBe(true);
  });
});

describe("collector settings (SPEC §15 tools.swarm)", () => {
  it("defaults, then tools.swarm, then the agent's own swarm; false at either level turns collectors off", () => {
    expect(swarmSettings(configFrom({}), "main")).toEqual({
      enabled: true,
      maxConcurrent: 8,
      maxChildrenPerGroup: 50,
      maxTotalPerGroup: 200,
      waitTimeoutSecondsMax: 600,
      defaultAgentId: "",
    });
    const config = configFrom({
      tools: { swarm: { maxConcurrent: 2, maxTotalPerGroup: 10 } },
      agents: {
        list: [{ id: "main" }, { id: "ops", swarm: { maxTotalPerGroup: 20 } }, { id: "off", swarm: false }],
      },
    });
    expect(swarmSettings(config, "main")).toMatchObject({
      enabled: true,
      maxConcurrent: 2,
      maxTotalPerGroup: 10,
    });
    expect(swarmSettings(config, "ops")).toMatchObject({ maxConcurrent: 2, maxTotalPerGroup: 20 });
    expect(swarmSettings(config, "off").enabled).toBe(false);
    expect(swarmSettings(configFrom({ tools: { swarm: false } }), "main").enabled).toBe(false);
  });

  it("rejects values outside OpenClaw's bounds, naming the field", () => {
    expect(() => configFrom({ tools: { swarm: { maxConcurrent: 0 } } })).toThrow(/maxConcurrent/);
    expect(() => configFrom({ tools: { swarm: { maxTotalPerGroup: 100_001 } } })).toThrow(/maxTotalPerGroup/);
    expect(() => configFrom({ tools: { swarm: { waitTimeoutSecondsMax: 86_401 } } })).toThrow(
      /waitTimeoutSecondsMax/,
    );
  });
});
