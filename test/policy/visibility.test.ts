import { describe, expect, it } from "vitest";
import {
  checkSessionVisible,
  effectiveVisibility,
  isRestrictedToSpawned,
  visibleScope,
} from "../../src/policy/visibility";
import { requesterWith, toolsConfig } from "../support";

const visibilityConfig = (visibility: string, extra: Record<string, unknown> = {}) =>
  toolsConfig({ sessions: { visibility }, ...extra });

const main = requesterWith();
const own = { sessionKey: "agent:main:main", agentId: "main" };
const child = { sessionKey: "agent:main:subagent:c1", agentId: "main", spawnedBy: "agent:main:main" };
const grandchild = {
  sessionKey: "agent:main:subagent:g1",
  agentId: "main",
  spawnedBy: "agent:main:subagent:c1",
};
const sibling = { sessionKey: "agent:main:discord:group:dev", agentId: "main" };
const otherAgent = { sessionKey: "agent:research:main", agentId: "research" };

const errorOf = (check: ReturnType<typeof checkSessionVisible>) => (check.ok ? undefined : check.error);

describe("checkSessionVisible: self", () => {
  const config = visibilityConfig("self");

  it("allows only the requester's own session", () => {
    expect(checkSessionVisible(config, main, own, "history")).toEqual({ ok: true });
    for (const target of [child, sibling]) {
      const check = checkSessionVisible(config, main, target, "history");
      expect(check).toMatchObject({ ok: false, status: "forbidden" });
      expect(errorOf(check)).toContain("tools.sessions.visibility=self");
    }
  });
});

describe("checkSessionVisible: tree", () => {
  const config = visibilityConfig("tree");

  it("allows the requester's own session and its direct children", () => {
    expect(checkSessionVisible(config, main, own, "list")).toEqual({ ok: true });
    expect(checkSessionVisible(config, main, child, "list")).toEqual({ ok: true });
  });

  it("hides grandchildren from the grandparent, but not from their parent", () => {
    const check = checkSessionVisible(config, main, grandchild, "history");
    expect(check).toMatchObject({ ok: false, status: "forbidden" });
    expect(errorOf(check)).toContain("tools.sessions.visibility=tree");
    const parent = requesterWith({ sessionKey: child.sessionKey, depth: 1, isSubagent: true });
    expect(checkSessionVisible(config, parent, grandchild, "history")).toEqual({ ok: true });
  });

  it("hides other sessions of the same agent, naming the setting", () => {
    const check = checkSessionVisible(config, main, sibling, "send");
    expect(check).toMatchObject({ ok: false, status: "forbidden" });
    expect(errorOf(check)).toContain("tools.sessions.visibility=tree");
    expect(errorOf(check)).toContain("send");
  });

  it("hides the parent from a child", () => {
    const asChild = requesterWith({ sessionKey: child.sessionKey, depth: 1, isSubagent: true });
    expect(checkSessionVisible(config, asChild, own, "history").ok).toBe(false);
  });
});

describe("checkSessionVisible: agent", () => {
  const config = visibilityConfig("agent", { agentToAgent: { enabled: true } });

  it("allows every session of the same agent", () => {
    for (const target of [own, child, grandchild, sibling]) {
      expect(checkSessionVisible(config, main, target, "status")).toEqual({ ok: true });
    }
  });

  it("forbids other agents even with agent-to-agent on, naming visibility", () => {
    const check = checkSessionVisible(config, main, otherAgent, "history");
    expect(check).toMatchObject({ ok: false, status: "forbidden" });
    expect(errorOf(check)).toContain("tools.sessions.visibility=agent");
  });
});

describe("checkSessionVisible: all and cross-agent", () => {
  it("forbids cross-agent access under tree, naming visibility", () => {
    const check = checkSessionVisible(visibilityConfig("tree"), main, otherAgent, "history");
    expect(check).toMatchObject({ ok: false, status: "forbidden" });
    expect(errorOf(check)).toContain("tools.sessions.visibility=tree");
  });

  it("forbids cross-agent access while agent-to-agent is off, naming that setting", () => {
    const check = checkSessionVisible(visibilityConfig("all"), main, otherAgent, "history");
    expect(check).toMatchObject({ ok: false, status: "forbidden" });
    expect(errorOf(check)).toContain("tools.agentToAgent.enabled=true");
  });

  it("forbids cross-agent access when allow does not match both agents", () => {
    const config = visibilityConfig("all", { agentToAgent: { enabled: true, allow: ["main", "ops"] } });
    const check = checkSessionVisible(config, main, otherAgent, "send");
    expect(check).toMatchObject({ ok: false, status: "forbidden" });
    expect(errorOf(check)).toContain("tools.agentToAgent.allow");
  });

  it("allows cross-agent access with all, agent-to-agent on and a matching allow", () => {
    const config = visibilityConfig("all", { agentToAgent: { enabled: true, allow: ["main", "res*"] } });
    expect(checkSessionVisible(config, main, otherAgent, "history")).toEqual({ ok: true });
  });

  it("allows every session of the same agent without agent-to-agent", () => {
    expect(checkSessionVisible(visibilityConfig("all"), main, sibling, "history")).toEqual({ ok: true });
  });
});

describe("sandbox clamp", () => {
  const sandboxed = requesterWith({ agentId: "ops", sandboxed: true });

  it("clamps agent and all to tree for a sandboxed requester in spawned mode", () => {
    expect(effectiveVisibility(visibilityConfig("all"), sandboxed)).toBe("tree");
    expect(effectiveVisibility(visibilityConfig("agent"), sandboxed)).toBe("tree");
  });

  it("leaves narrower levels alone", () => {
    expect(effectiveVisibility(visibilityConfig("tree"), sandboxed)).toBe("tree");
    expect(effectiveVisibility(visibilityConfig("self"), sandboxed)).toBe("self");
  });

  it("does not clamp with sessionToolsVisibility=all or an unsandboxed requester", () => {
    const allMode = toolsConfig(
      { sessions: { visibility: "all" } },
      { defaults: { sandbox: { sessionToolsVisibility: "all" } } },
    );
    expect(effectiveVisibility(allMode, sandboxed)).toBe("all");
    expect(effectiveVisibility(visibilityConfig("all"), main)).toBe("all");
  });

  it("makes the clamped level govern the check", () => {
    const config = visibilityConfig("all", { agentToAgent: { enabled: true } });
    const opsSibling = { sessionKey: "agent:ops:discord:group:x", agentId: "ops" };
    const check = checkSessionVisible(config, sandboxed, opsSibling, "history");
    expect(errorOf(check)).toContain("tools.sessions.visibility=tree");
    expect(checkSessionVisible(config, sandboxed, otherAgent, "history").ok).toBe(false);
    expect(checkSessionVisible(config, requesterWith({ agentId: "ops" }), otherAgent, "history")).toEqual({
      ok: true,
    });
  });
});

describe("isRestrictedToSpawned", () => {
  const config = visibilityConfig("all");

  it("is true for a sandboxed top-level requester in spawned mode", () => {
    expect(isRestrictedToSpawned(config, requesterWith({ sandboxed: true }))).toBe(true);
  });

  it("is false for sub-agents, unsandboxed requesters and sessionToolsVisibility=all", () => {
    expect(
      isRestrictedToSpawned(config, requesterWith({ sandboxed: true, isSubagent: true, depth: 1 })),
    ).toBe(false);
    expect(isRestrictedToSpawned(config, requesterWith())).toBe(false);
    const allMode = toolsConfig({}, { defaults: { sandbox: { sessionToolsVisibility: "all" } } });
    expect(isRestrictedToSpawned(allMode, requesterWith({ sandboxed: true }))).toBe(false);
  });
});

describe("visibleScope", () => {
  it("maps each level to the query's scope", () => {
    expect(visibleScope(visibilityConfig("self"), main)).toEqual({
      type: "self",
      sessionKey: "agent:main:main",
      agentId: "main",
    });
    expect(visibleScope(visibilityConfig("tree"), main)).toEqual({
      type: "tree",
      sessionKey: "agent:main:main",
      agentId: "main",
    });
    expect(visibleScope(visibilityConfig("agent"), main)).toEqual({ type: "agents", agentIds: ["main"] });
    expect(visibleScope(visibilityConfig("all"), main)).toEqual({ type: "agents", agentIds: ["main"] });
    const a2a = visibilityConfig("all", { agentToAgent: { enabled: true, allow: ["main", "research"] } });
    expect(visibleScope(a2a, main)).toEqual({ type: "agents", agentIds: ["main", "research"] });
  });

  it("drops the agent condition only when agent-to-agent is open to any agent", () => {
    const open = (allow: string[]) => visibilityConfig("all", { agentToAgent: { enabled: true, allow } });
    expect(visibleScope(open(["*"]), main)).toEqual({ type: "all" });
    expect(visibleScope(open([]), main)).toEqual({ type: "all" });
    expect(visibleScope(open(["main", " ** "]), main)).toEqual({ type: "all" });
    expect(visibleScope(open(["ma*", "research"]), main)).toEqual({
      type: "agents",
      agentIds: ["main", "research"],
    });
    const closed = visibilityConfig("all", { agentToAgent: { enabled: false, allow: ["*"] } });
    expect(visibleScope(closed, main)).toEqual({ type: "agents", agentIds: ["main"] });
    expect(visibleScope(visibilityConfig("agent", { agentToAgent: { enabled: true } }), main)).toEqual({
      type: "agents",
      agentIds: ["main"],
    });
  });

  it("uses the clamped level", () => {
    const sandboxed = requesterWith({ agentId: "ops", sandboxed: true });
    expect(visibleScope(visibilityConfig("all"), sandboxed)).toEqual({
      type: "tree",
      sessionKey: "agent:ops:main",
      agentId: "ops",
    });
  });
});
