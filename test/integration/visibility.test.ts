import { describe, expect, it } from "vitest";
import type { SwitchboardConfig } from "../../src/config/schema";
import {
  AGENT_TOKENS,
  call,
  createSession,
  createSpawned,
  getSession,
  type ResultOf,
  type SessionRow,
  sessionPath,
  tool,
  toolWithConfig,
  uid,
  workerConfigWith,
} from "../support";

/**
 * One small world per test: a main-agent requester with a child and a grandchild, a sibling it did not
 * spawn, a research child it spawned (cross-agent), another research session and an ops session.
 * Every key carries the test's unique id, so `search` confines a listing to this world.
 */
async function world() {
  const u = uid();
  const keys = {
    requester: `agent:main:vis-r-${u}`,
    child: `agent:main:api:vis-c-${u}`,
    grandchild: `agent:main:api:vis-g-${u}`,
    sibling: `agent:main:api:vis-s-${u}`,
    researchChild: `agent:research:api:vis-x-${u}`,
    research: `agent:research:api:vis-y-${u}`,
    ops: `agent:ops:api:vis-o-${u}`,
  };
  await createSession({ agentId: "main", key: keys.requester });
  await createSpawned({ sessionKey: keys.child, agentId: "main", spawnedBy: keys.requester });
  await createSpawned({ sessionKey: keys.grandchild, agentId: "main", spawnedBy: keys.child, spawnDepth: 2 });
  await createSession({ agentId: "main", key: keys.sibling });
  await createSpawned({ sessionKey: keys.researchChild, agentId: "research", spawnedBy: keys.requester });
  await createSession({ agentId: "research", key: keys.research });
  await createSession({ agentId: "ops", key: keys.ops });
  return { u, keys };
}

type Keys = Awaited<ReturnType<typeof world>>["keys"];
/** Runs a tool for a requester: over HTTP, or through the tool layer with another configuration. */
type Run = <Name extends string>(
  name: Name,
  requester: string,
  args?: Record<string, unknown>,
) => Promise<ResultOf<Name>>;

const overHttp: Run = (name, requester, args) => tool(name, requester, args);
const withConfig =
  (config: SwitchboardConfig): Run =>
  (name, requester, args) =>
    toolWithConfig(config, name, requester, args);

/** The Worker's configuration with `tools.sessions.visibility` set to `level` as written (the parse lowercases it). */
const visibility = (level: string) =>
  workerConfigWith((document) => {
    Object.assign(document.tools.sessions, { visibility: level });
  });

/** The sorted keys a requester lists within this world. */
async function listed(run: Run, requester: string, u: string, args: Record<string, unknown> = {}) {
  const result = await run("sessions_list", requester, { search: u, ...args });
  return result.sessions.map((row) => row.key).sort();
}

/** `ok` when history of the target can be read; else the result's status and error. */
async function historyOf(run: Run, requester: string, target: string) {
  const result = await run("sessions_history", requester, { sessionKey: target });
  return result.status === undefined ? "ok" : `${result.status}: ${result.error}`;
}

const sorted = (...keys: string[]) => [...keys].sort();

/** Checks list, history and status against the expected visible set. */
async function expectVisible(run: Run, requester: string, u: string, keys: Keys, visible: string[]) {
  expect(await listed(run, requester, u)).toEqual(sorted(...visible));
  for (const target of Object.values(keys)) {
    const history = await historyOf(run, requester, target);
    const status = await run("session_status", requester, { sessionKey: target });
    if (visible.includes(target)) {
      expect(history, target).toBe("ok");
      expect(status.ok, target).toBe(true);
    } else {
      expect(history, target).toMatch(/^forbidden: /);
      expect(status.status, target).toBe("forbidden");
    }
  }
}

describe("visibility levels", () => {
  it("tree (the default, over HTTP): own session and direct children of the own agent", async () => {
    const { u, keys } = await world();
    await expectVisible(overHttp, keys.requester, u, keys, [keys.requester, keys.child]);
    expect(await historyOf(overHttp, keys.requester, keys.sibling)).toContain(
      "tools.sessions.visibility=tree",
    );
    // A spawned child of another agent is still cross-agent.
    expect(await historyOf(overHttp, keys.requester, keys.researchChild)).toContain("visibility=all");
    // The grandchild belongs to the child's tree, not the grandparent's.
    expect(await listed(overHttp, keys.child, u)).toEqual(sorted(keys.child, keys.grandchild));
    expect(await historyOf(overHttp, keys.child, keys.grandchild)).toBe("ok");
  });

  it("self: only the requester's own session", async () => {
    const { u, keys } = await world();
    const run = withConfig(visibility("self"));
    await expectVisible(run, keys.requester, u, keys, [keys.requester]);
    expect(await historyOf(run, keys.requester, keys.child)).toContain("tools.sessions.visibility=self");
  });

  it("agent: every session of the requester's agent, none of another", async () => {
    const { u, keys } = await world();
    const run = withConfig(visibility("agent"));
    await expectVisible(run, keys.requester, u, keys, [
      keys.requester,
      keys.child,
      keys.grandchild,
      keys.sibling,
    ]);
    expect(await historyOf(run, keys.requester, keys.research)).toContain("tools.sessions.visibility=agent");
  });

  it("all: other agents too, as far as tools.agentToAgent allows", async () => {
    const { u, keys } = await world();
    const run = withConfig(visibility("ALL"));
    await expectVisible(run, keys.requester, u, keys, Object.values(keys));
    expect(await listed(run, keys.requester, u, { agentId: "research" })).toEqual(
      sorted(keys.researchChild, keys.research),
    );

    const disabled = withConfig(
      workerConfigWith((document) => {
        document.tools.sessions.visibility = "all";
        document.tools.agentToAgent.enabled = false;
      }),
    );
    await expectVisible(disabled, keys.requester, u, keys, [
      keys.requester,
      keys.child,
      keys.grandchild,
      keys.sibling,
    ]);
    expect(await historyOf(disabled, keys.requester, keys.research)).toContain(
      "tools.agentToAgent.enabled=true",
    );

    const allowList = (allow: string[]) =>
      withConfig(
        workerConfigWith((document) => {
          document.tools.sessions.visibility = "all";
          document.tools.agentToAgent.allow = allow;
        }),
      );
    const mainAndOps = allowList(["main", "ops"]);
    const ownAgent = [keys.requester, keys.child, keys.grandchild, keys.sibling];
    await expectVisible(mainAndOps, keys.requester, u, keys, [...ownAgent, keys.ops]);
    expect(await historyOf(mainAndOps, keys.requester, keys.research)).toContain("tools.agentToAgent.allow");
    await expectVisible(allowList(["ma*", "re*"]), keys.requester, u, keys, [
      ...ownAgent,
      keys.researchChild,
      keys.research,
    ]);
  });
});

describe("sandboxed requesters (ops is sandboxed)", () => {
  /** The world plus an ops requester and its child; the world's ops session is the requester's sibling. */
  async function opsWorld() {
    const { u, keys } = await world();
    const all = { ...keys, opsRequester: `agent:ops:vis-or-${u}`, opsChild: `agent:ops:api:vis-oc-${u}` };
    await createSession({ agentId: "ops", key: all.opsRequester });
    const child = await createSpawned({
      sessionKey: all.opsChild,
      agentId: "ops",
      spawnedBy: all.opsRequester,
    });
    const sibling = await getSession(keys.ops);
    return { u, keys: all, childId: child.sessionId, siblingId: sibling.json.sessionId };
  }
  const liftedClamp = (level: string) =>
    withConfig(
      workerConfigWith((document) => {
        Object.assign(document.tools.sessions, { visibility: level });
        document.agents.defaults.sandbox = { sessionToolsVisibility: "all" };
      }),
    );

  it("agent and all are clamped to tree while sessionToolsVisibility is spawned", async () => {
    const { u, keys } = await opsWorld();
    for (const level of ["agent", "all"]) {
      const run = withConfig(visibility(level));
      await expectVisible(run, keys.opsRequester, u, keys, [keys.opsRequester, keys.opsChild]);
      expect(await historyOf(run, keys.opsRequester, keys.ops)).toContain("tools.sessions.visibility=tree");
    }
    // The clamp only narrows: self stays self.
    await expectVisible(withConfig(visibility("self")), keys.opsRequester, u, keys, [keys.opsRequester]);
  });

  it("sessionToolsVisibility=all lifts the clamp", async () => {
    const { u, keys } = await opsWorld();
    await expectVisible(liftedClamp("agent"), keys.opsRequester, u, keys, [
      keys.opsRequester,
      keys.opsChild,
      keys.ops,
    ]);
    await expectVisible(liftedClamp("all"), keys.opsRequester, u, keys, Object.values(keys));
  });

  it("a sandboxed top-level requester finds by sessionId only the sessions it spawned", async () => {
    const { keys, childId, siblingId } = await opsWorld();
    // Over HTTP with the default configuration (tree; sandboxed requesters restricted to spawned).
    expect(await historyOf(overHttp, keys.opsRequester, childId)).toBe("ok");
    expect(await historyOf(overHttp, keys.opsRequester, siblingId)).toBe(
      `error: Session not found: ${siblingId}. Use the full session key from sessions_list.`,
    );
    // By key the sibling is found, and refused by visibility instead.
    expect(await historyOf(overHttp, keys.opsRequester, keys.ops)).toMatch(/^forbidden: /);
    // A requester that is not sandboxed finds a session by id even outside its tree (then refused).
    const mainSibling = await getSession(keys.sibling);
    expect(await historyOf(overHttp, keys.requester, mainSibling.json.sessionId)).toContain(
      "tools.sessions.visibility=tree",
    );
    // With sessionToolsVisibility=all the sessionId lookup finds it, and agent visibility lets it be read.
    expect(await historyOf(liftedClamp("agent"), keys.opsRequester, siblingId)).toBe("ok");
  });
});

describe("childSessions (SPEC §5.1): the children a row's session spawned, as far as the caller sees them", () => {
  it("lists only children the caller may see, on sessions_list rows and GET /v1/sessions/{key}", async () => {
    const { u, keys } = await world();
    /** Each listed row's key → its childSessions, sorted (absent: no visible child). */
    const childrenOf = async (run: Run, requester: string) => {
      const result = await run("sessions_list", requester, { search: u });
      return Object.fromEntries(
        result.sessions.map((row) => [
          row.key,
          row.childSessions ? [...row.childSessions].sort() : undefined,
        ]),
      );
    };
    // tree: the cross-agent child and the grandchild (the child's tree) are not the requester's to see.
    expect(await childrenOf(overHttp, keys.requester)).toEqual({
      [keys.requester]: [keys.child],
      [keys.child]: undefined,
    });
    expect(await childrenOf(overHttp, keys.child)).toEqual({
      [keys.child]: [keys.grandchild],
      [keys.grandchild]: undefined,
    });
    expect(await childrenOf(withConfig(visibility("self")), keys.requester)).toEqual({
      [keys.requester]: undefined,
    });
    const all = await childrenOf(withConfig(visibility("all")), keys.requester);
    expect(all[keys.requester]).toEqual(sorted(keys.child, keys.researchChild));
    expect(all[keys.child]).toEqual([keys.grandchild]);
    expect(all[keys.sibling]).toBeUndefined();

    // REST: the operator sees every child, an agent token its own agent's only.
    const rest = async (token: string) =>
      (await call<SessionRow>("GET", sessionPath(keys.requester), { token })).json.childSessions?.sort();
    expect((await getSession(keys.requester)).json.childSessions?.sort()).toEqual(
      sorted(keys.child, keys.researchChild),
    );
    expect(await rest(AGENT_TOKENS.main)).toEqual([keys.child]);
    expect((await getSession(keys.sibling)).json).not.toHaveProperty("childSessions");
  });
});
