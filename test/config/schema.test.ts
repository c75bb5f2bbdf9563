import { describe, expect, it } from "vitest";
import { subagentSettings } from "../../src/config/agents";
import { parseConfig } from "../../src/config/load";
import type { SwitchboardConfig } from "../../src/config/schema";

/** Parses a document that must be valid. */
function configOf(document: unknown): SwitchboardConfig {
  const result = parseConfig(JSON.stringify(document));
  if (!result.ok) throw new Error(`expected a valid config, got: ${result.error}`);
  return result.config;
}

/** The error of a document that must be invalid. */
function errorOf(document: unknown): string {
  const result = parseConfig(typeof document === "string" ? document : JSON.stringify(document));
  if (result.ok) throw new Error("expected an invalid config");
  return result.error;
}

describe("defaults (SPEC §2)", () => {
  it("fills every documented default from an empty document", () => {
    const config = configOf({});
    expect(config.session).toEqual({
      mainKey: "main",
      scope: "per-sender",
      agentToAgent: { maxPingPongTurns: 5 },
    });
    expect(config.session.sendPolicy).toBeUndefined();
    expect(config.tools.profile).toBe("coding");
    expect(config.tools.alsoAllow).toEqual([]);
    expect(config.tools.sessions.visibility).toBe("tree");
    expect(config.tools.agentToAgent).toEqual({ enabled: false, allow: [] });
    expect(config.tools.subagents.tools).toEqual({});
    expect(config.tools.sessions_spawn.attachments).toEqual({
      enabled: false,
      maxFiles: 50,
      maxFileBytes: 1024 * 1024,
      maxTotalBytes: 5 * 1024 * 1024,
      retainOnSessionKeep: false,
    });
    expect(config.agents.defaults.sandbox.sessionToolsVisibility).toBe("spawned");
    expect(config.agents.list.map((agent) => agent.id)).toEqual(["main"]);
    expect(config.agents.list[0]?.sandbox).toBe(false);
    expect(config.channels).toEqual({});
  });

  it("treats an absent or blank document as empty", () => {
    expect(parseConfig(undefined)).toEqual(parseConfig("{}"));
    expect(parseConfig("   ")).toEqual(parseConfig("{}"));
  });

  it("gives sub-agent settings their documented defaults", () => {
    const { model, thinking, ...settings } = subagentSettings(configOf({}), "main");
    expect(settings).toEqual({
      maxSpawnDepth: 1,
      maxChildrenPerAgent: 5,
      maxConcurrent: 8,
      runTimeoutSeconds: 0,
      archiveAfterMinutes: 60,
      announceTimeoutMs: 120_000,
      allowAgents: [],
      requireAgentId: false,
    });
    expect(model).toBeUndefined();
    expect(thinking).toBeUndefined();
  });

  it("layers agents.defaults.subagents under the agent's own settings", () => {
    const config = configOf({
      agents: {
        defaults: { subagents: { maxSpawnDepth: 3, maxChildrenPerAgent: 2, model: "m/default" } },
        list: [{ id: "main", subagents: { maxSpawnDepth: 2, allowAgents: ["*"] } }, { id: "other" }],
      },
    });
    expect(subagentSettings(config, "main")).toMatchObject({
      maxSpawnDepth: 2,
      maxChildrenPerAgent: 2,
      model: "m/default",
      allowAgents: ["*"],
    });
    expect(subagentSettings(config, "other")).toMatchObject({ maxSpawnDepth: 3, allowAgents: [] });
  });

  it("trims and lower-cases session.mainKey", () => {
    expect(configOf({ session: { mainKey: "  Home " } }).session.mainKey).toBe("home");
  });

  it("lower-cases agent ids", () => {
    expect(configOf({ agents: { list: [{ id: "Research" }] } }).agents.list[0]?.id).toBe("research");
  });
});

describe("session.agentToAgent.maxPingPongTurns", () => {
  const turns = (value: unknown) =>
    configOf({ session: { agentToAgent: { maxPingPongTurns: value } } }).session.agentToAgent
      .maxPingPongTurns;

  it("keeps an integer in range", () => {
    expect(turns(0)).toBe(0);
    expect(turns(3)).toBe(3);
    expect(turns(20)).toBe(20);
  });

  it("floors floats", () => {
    expect(turns(2.9)).toBe(2);
    expect(turns(0.5)).toBe(0);
  });

  it("clamps out-of-range values", () => {
    expect(turns(21)).toBe(20);
    expect(turns(1000)).toBe(20);
    expect(turns(-1)).toBe(0);
    expect(turns(-0.5)).toBe(0);
  });

  it("reads non-numbers as 5", () => {
    expect(turns("3")).toBe(5);
    expect(turns(null)).toBe(5);
    expect(turns(true)).toBe(5);
    expect(turns([2])).toBe(5);
    expect(configOf({ session: { agentToAgent: {} } }).session.agentToAgent.maxPingPongTurns).toBe(5);
  });
});

describe("tools.sessions.visibility", () => {
  const visibility = (value: unknown) =>
    configOf({ tools: { sessions: { visibility: value } } }).tools.sessions.visibility;

  it("accepts each level", () => {
    for (const level of ["self", "tree", "agent", "all"]) expect(visibility(level)).toBe(level);
  });

  it("is case-insensitive", () => {
    expect(visibility("ALL")).toBe("all");
    expect(visibility("Agent")).toBe("agent");
    expect(visibility(" Self ")).toBe("self");
  });

  it("reads an invalid value as tree", () => {
    expect(visibility("everyone")).toBe("tree");
    expect(visibility(7)).toBe("tree");
    expect(visibility(null)).toBe("tree");
  });
});

describe("rejected documents name the bad path", () => {
  it.each([
    [
      { agents: { defaults: { subagents: { maxSpawnDepth: 0 } } } },
      "agents.defaults.subagents.maxSpawnDepth",
    ],
    [
      { agents: { defaults: { subagents: { maxSpawnDepth: 6 } } } },
      "agents.defaults.subagents.maxSpawnDepth",
    ],
    [
      { agents: { defaults: { subagents: { maxSpawnDepth: 1.5 } } } },
      "agents.defaults.subagents.maxSpawnDepth",
    ],
    [
      { agents: { defaults: { subagents: { maxChildrenPerAgent: 0 } } } },
      "agents.defaults.subagents.maxChildrenPerAgent",
    ],
    [
      { agents: { defaults: { subagents: { maxChildrenPerAgent: 21 } } } },
      "agents.defaults.subagents.maxChildrenPerAgent",
    ],
    [
      { agents: { defaults: { subagents: { maxConcurrent: 0 } } } },
      "agents.defaults.subagents.maxConcurrent",
    ],
    [
      { agents: { defaults: { subagents: { runTimeoutSeconds: -1 } } } },
      "agents.defaults.subagents.runTimeoutSeconds",
    ],
    [
      { agents: { defaults: { subagents: { archiveAfterMinutes: -1 } } } },
      "agents.defaults.subagents.archiveAfterMinutes",
    ],
    [
      { agents: { defaults: { subagents: { announceTimeoutMs: 0 } } } },
      "agents.defaults.subagents.announceTimeoutMs",
    ],
    [
      { agents: { list: [{ id: "main", subagents: { maxSpawnDepth: 9 } }] } },
      "agents.list[0].subagents.maxSpawnDepth",
    ],
    [{ agents: { list: [{ id: "Bad Id!" }] } }, "agents.list[0].id"],
    [{ agents: { list: [] } }, "agents.list"],
    [{ tools: { profile: "everything" } }, "tools.profile"],
    [{ agents: { list: [{ id: "main", tools: { profile: "admin" } }] } }, "agents.list[0].tools.profile"],
    [{ session: { scope: "per-peer" } }, "session.scope"],
    [{ session: { mainKey: "  " } }, "session.mainKey"],
    [
      { agents: { defaults: { sandbox: { sessionToolsVisibility: "none" } } } },
      "agents.defaults.sandbox.sessionToolsVisibility",
    ],
    [{ tools: { agentToAgent: { enabled: "yes" } } }, "tools.agentToAgent.enabled"],
    [
      { session: { sendPolicy: { rules: [{ action: "block", match: {} }] } } },
      "session.sendPolicy.rules[0].action",
    ],
    [
      { session: { sendPolicy: { rules: [{ action: "deny", match: { chatType: "dm" } }] } } },
      "session.sendPolicy.rules[0].match.chatType",
    ],
    [
      { tools: { sessions_spawn: { attachments: { maxFiles: 0 } } } },
      "tools.sessions_spawn.attachments.maxFiles",
    ],
  ])("%j → %s", (document, path) => {
    const error = errorOf(document);
    expect(error).toContain("SWITCHBOARD_CONFIG invalid");
    expect(error).toContain(`${path}:`);
  });

  it("accepts the range bounds", () => {
    const config = configOf({
      agents: {
        defaults: {
          subagents: {
            maxSpawnDepth: 5,
            maxChildrenPerAgent: 20,
            maxConcurrent: 1,
            runTimeoutSeconds: 0,
            archiveAfterMinutes: 0,
            announceTimeoutMs: 1,
          },
        },
      },
    });
    expect(subagentSettings(config, "main")).toMatchObject({ maxSpawnDepth: 5, maxChildrenPerAgent: 20 });
  });

  it("rejects unknown keys, naming them", () => {
    expect(errorOf({ tools: { sessions: { visibility: "all", extra: 1 } } })).toContain("tools.sessions");
    expect(errorOf({ tools: { sessions: { visibility: "all", extra: 1 } } })).toContain("extra");
    expect(errorOf({ bogus: true })).toContain("bogus");
  });

  it("rejects duplicate agent ids at the second one", () => {
    const error = errorOf({ agents: { list: [{ id: "main" }, { id: "ops" }, { id: "MAIN" }] } });
    expect(error).toContain("agents.list[2].id:");
    expect(error).toContain('duplicate agent id "main"');
  });

  it("names a bad path in SPEC §20's form", () => {
    const runtimeType = errorOf({
      agents: { list: [{ id: "main" }, { id: "ops", runtime: { type: "gpt" } }] },
    });
    expect(runtimeType).toMatch(/^SWITCHBOARD_CONFIG invalid: agents\.list\[1\]\.runtime\.type: /);
    const model = errorOf({
      agents: { list: [{ id: "main" }, { id: "ops", runtime: { type: "anthropic" } }] },
    });
    expect(model).toMatch(/^SWITCHBOARD_CONFIG invalid: agents\.list\[1\]\.runtime\.model: /);
    const header = errorOf({
      agents: {
        list: [{ id: "main", runtime: { type: "openai", model: "m", headers: { "x-a": { env: 1 } } } }],
      },
    });
    expect(header).toContain('agents.list[0].runtime.headers["x-a"].env: ');
    expect(errorOf({ channels: { "chat.web": { webhookUrl: "nope" } } })).toContain(
      'channels["chat.web"].webhookUrl: ',
    );
  });

  it("rejects invalid JSON", () => {
    const error = errorOf("{ not json");
    expect(error).toMatch(/^SWITCHBOARD_CONFIG is not valid JSON/);
  });

  it("rejects a document that is not an object", () => {
    expect(errorOf("[]")).toContain("(root)");
    expect(errorOf('"text"')).toContain("(root)");
  });
});

describe("the local default configuration (config/local.json)", () => {
  it("is valid and has the three demo agents", async () => {
    const { env } = await import("cloudflare:workers");
    const config = configOf(JSON.parse(env.LOCAL_DEFAULT_CONFIG ?? ""));
    expect(config.agents.list.map((agent) => agent.id)).toEqual(["main", "research", "ops"]);
    expect(config.agents.list.find((agent) => agent.id === "ops")?.tools?.profile).toBe("messaging");
  });
});
