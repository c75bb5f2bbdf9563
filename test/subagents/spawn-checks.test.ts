import { describe, expect, it } from "vitest";
import {
  ADMIN,
  type ApiError,
  agentIn,
  answerDeferred,
  call,
  toolWithConfig,
  UUID,
  workerConfig,
  workerConfigWith,
} from "../support";
import {
  childAt,
  childKeyOf,
  expectRefused,
  indexedChildren,
  NOTE,
  requester,
  settleAll,
  spawn,
  spawnOk,
} from "../support/subagents";

const INVALID_AGENT = (id: string) => `Invalid agentId "${id}": use [a-z0-9][a-z0-9_-]{0,63}.`;
const SESSION_NEEDS_THREAD = 'mode "session" needs thread: true; use mode "run" for a one-off task.';
const DEPTH = (depth: number, max: number) =>
  `Sub-agent depth ${depth} has reached agents.defaults.subagents.maxSpawnDepth=${max}; this session cannot spawn.`;
const CHILDREN = (active: number, max: number) =>
  `This session already has ${active} active sub-agents (maxChildrenPerAgent=${max}); wait for one to finish or kill one with subagents.`;
const REQUIRE_AGENT = "agentId is required here (subagents.requireAgentId=true); see agents_list.";
const NOT_ALLOWED = (id: string, list: string) =>
  `Spawning agent "${id}" is not allowed (subagents.allowAgents; ${list}).`;
const SANDBOXED = (id: string) => `A sandboxed session cannot spawn the unsandboxed agent "${id}".`;
const REQUIRE_SANDBOX = (id: string) => `sandbox: "require" but agent "${id}" is not sandboxed.`;
const THINKING = (value: string) =>
  `Invalid thinking "${value}"; use one of off, minimal, low, medium, high, xhigh.`;
const FORK = 'context: "fork" copies your transcript, so it only works for your own agent.';

/** The configured models, listed from the test configuration itself. */
function modelList(): string {
  const models = new Set<string>();
  for (const agent of workerConfig().agents.list) models.add(agent.model);
  return [...models].join(", ");
}

describe("sessions_spawn checks, each in SPEC §5.4 order with its status", () => {
  it("1. a malformed agentId is an error, before the mode check", async () => {
    const r = await requester("main", "chk-id");
    await expectRefused(
      r,
      await spawn(r, { task: "t", agentId: "bad agent!" }),
      "error",
      INVALID_AGENT("bad agent!"),
    );
    await expectRefused(
      r,
      await spawn(r, { task: "t", agentId: "-dash", mode: "session" }),
      "error",
      INVALID_AGENT("-dash"),
    );
  });

  it("2. mode session without thread is an error, before the depth check", async () => {
    const r = await requester("main", "chk-mode");
    await expectRefused(r, await spawn(r, { task: "t", mode: "session" }), "error", SESSION_NEEDS_THREAD);
    await expectRefused(
      r,
      await spawn(r, { task: "t", mode: "session", thread: false }),
      "error",
      SESSION_NEEDS_THREAD,
    );
    // A depth-1 child that may call the tool (alsoAllow) but is at maxSpawnDepth 1: the mode error comes first.
    const parent = await requester("main", "chk-mode-p");
    const leaf = await childAt("main", parent, 1);
    const config = workerConfigWith((document) => {
      document.tools.subagents = { tools: { alsoAllow: ["sessions_spawn"] } };
    });
    expect(await toolWithConfig(config, "sessions_spawn", leaf, { task: "t", mode: "session" })).toEqual({
      status: "error",
      error: SESSION_NEEDS_THREAD,
    });
  });

  it("3. a requester at maxSpawnDepth is forbidden (a depth-1 child of main under maxSpawnDepth 1)", async () => {
    const parent = await requester("main", "chk-depth");
    const leaf = await childAt("main", parent, 1);
    // Over HTTP the leaf is not even offered the tool (SPEC §5.4 tool policy)...
    const http = await call<ApiError>("POST", "/v1/tools/sessions_spawn", {
      token: ADMIN,
      body: { task: "t" },
      headers: { "X-Switchboard-Session": leaf },
    });
    expect(http.status).toBe(404);
    expect(http.json.error).toEqual({
      code: "tool_not_found",
      message: "Tool not available: sessions_spawn",
    });
    // ...and when a policy gives it back, the depth check refuses, before the children check.
    const config = workerConfigWith((document) => {
      document.tools.subagents = { tools: { alsoAllow: ["sessions_spawn"] } };
      document.agents.defaults.subagents.maxChildrenPerAgent = 1;
    });
    await childAt("main", leaf, 2);
    expect(await toolWithConfig(config, "sessions_spawn", leaf, { task: "t" })).toEqual({
      status: "forbidden",
      error: DEPTH(1, 1),
    });
    // At depth 2 of maxSpawnDepth 2 (the boss agent's setting) it is the same refusal.
    const boss = await requester("boss", "chk-depth-b");
    const bossChild = await childAt("boss", boss, 1);
    const worker = await childAt("boss", bossChild, 2);
    expect(await toolWithConfig(config, "sessions_spawn", worker, { task: "t" })).toEqual({
      status: "forbidden",
      error: DEPTH(2, 2),
    });
    // The depth-1 boss child is an orchestrator: allowed (and only its worker child blocks the cap of 1).
    expect(
      await toolWithConfig(config, "sessions_spawn", bossChild, { task: "t", agentId: "worker" }),
    ).toEqual({
      status: "forbidden",
      error: CHILDREN(1, 1),
    });
  });

  it("4. active children at maxChildrenPerAgent are forbidden, before requireAgentId", async () => {
    const r = await requester("main", "chk-children");
    await childAt("research", r, 1);
    const config = workerConfigWith((document) => {
      document.agents.defaults.subagents.maxChildrenPerAgent = 1;
      document.agents.defaults.subagents.requireAgentId = true;
    });
    expect(await toolWithConfig(config, "sessions_spawn", r, { task: "t" })).toEqual({
      status: "forbidden",
      error: CHILDREN(1, 1),
    });
    expect(await indexedChildren(r)).toHaveLength(1);
  });

  it("4. with the default of 5: five running children block a sixth; one finishing frees a slot", async () => {
    const r = await requester("spawner", "chk-five");
    const children: string[] = [];
    for (let i = 0; i < 5; i++) {
      children.push((await spawnOk(r, { task: `long job ${i}`, agentId: "hook-async" })).child);
    }
    expect(await spawn(r, { task: "one more", agentId: "worker" })).toEqual({
      status: "forbidden",
      error: CHILDREN(5, 5),
    });
    expect(await indexedChildren(r)).toHaveLength(5);
    const [first, ...rest] = children;
    if (!first) throw new Error("no child");
    await answerDeferred(first, "done early", [first, r]);
    await settleAll([first]);
    const sixth = await spawnOk(r, { task: "one more", agentId: "worker" });
    expect(sixth.child).toMatch(childKeyOf("worker"));
    // The others are still running: finish them so no run is left behind.
    for (const child of rest) await answerDeferred(child, "done", [child]);
  });

  it("5. requireAgentId without agentId is forbidden; with it the spawn goes on", async () => {
    const r = await requester("main", "chk-require");
    const config = workerConfigWith((document) => {
      document.agents.defaults.subagents.requireAgentId = true;
    });
    expect(await toolWithConfig(config, "sessions_spawn", r, { task: "t" })).toEqual({
      status: "forbidden",
      error: REQUIRE_AGENT,
    });
    expect(await indexedChildren(r)).toEqual([]);
    const accepted = await toolWithConfig(config, "sessions_spawn", r, { task: "t", agentId: "main" });
    expect(accepted).toMatchObject({
      status: "accepted",
      childSessionKey: expect.stringMatching(childKeyOf("main")),
    });
  });

  it("6. allowAgents: another agent must be listed; the error lists the allowed ids, or says none", async () => {
    const main = await requester("main", "chk-allow");
    await expectRefused(
      main,
      await spawn(main, { task: "t", agentId: "hook-sync" }),
      "forbidden",
      NOT_ALLOWED("hook-sync", "allowed: research, ops"),
    );
    // An unknown agent is not allowed either (the allow list is checked first).
    await expectRefused(
      main,
      await spawn(main, { task: "t", agentId: "nobody" }),
      "forbidden",
      NOT_ALLOWED("nobody", "allowed: research, ops"),
    );
    const research = await requester("research", "chk-allow-none");
    await expectRefused(
      research,
      await spawn(research, { task: "t", agentId: "main" }),
      "forbidden",
      NOT_ALLOWED("main", "no other agents are allowed"),
    );
    // Its own agent needs no entry.
    expect((await spawn(research, { task: "t" })).childSessionKey).toMatch(childKeyOf("research"));
  });

  it("6. allowAgents ids are case-insensitive, both in the request and in the configuration", async () => {
    const r = await requester("main", "chk-allow-case");
    const upper = await spawn(r, { task: "t", agentId: "RESEARCH" });
    expect(upper.childSessionKey).toMatch(childKeyOf("research"));
    const config = workerConfigWith((document) => {
      agentIn(document, "main").subagents = { allowAgents: ["Research", " OPS "] };
    });
    const fromConfig = await toolWithConfig(config, "sessions_spawn", r, { task: "t", agentId: "ops" });
    expect(fromConfig.childSessionKey).toMatch(childKeyOf("ops"));
    await settleAll([r, upper.childSessionKey, fromConfig.childSessionKey]);
  });

  it('6. allowAgents "*" allows any configured agent; an unknown one is then an error', async () => {
    const r = await requester("spawner", "chk-star");
    const quiet = await spawn(r, { task: "t", agentId: "quiet" });
    expect(quiet.childSessionKey).toMatch(childKeyOf("quiet"));
    expect(await spawn(r, { task: "t", agentId: "nobody" })).toEqual({
      status: "error",
      error: 'Unknown agent "nobody"; see agents_list.',
    });
    expect(await indexedChildren(r)).toHaveLength(1);
  });

  it("7. a sandboxed requester cannot spawn an unsandboxed agent, before the model check", async () => {
    const vault = await requester("vault", "chk-sandbox");
    await expectRefused(
      vault,
      await spawn(vault, { task: "t", agentId: "main", model: "no-such-model" }),
      "forbidden",
      SANDBOXED("main"),
    );
    // Its own agent is sandboxed too: allowed, and so is the sandboxed ops agent.
    expect((await spawn(vault, { task: "t", agentId: "ops" })).childSessionKey).toMatch(childKeyOf("ops"));
    expect((await spawn(vault, { task: "t" })).childSessionKey).toMatch(childKeyOf("vault"));
    // allowAgents comes before the sandbox check: research is not allowed to vault at all.
    expect(await spawn(vault, { task: "t", agentId: "research" })).toEqual({
      status: "forbidden",
      error: NOT_ALLOWED("research", "allowed: main, ops"),
    });
  });

  it('7. sandbox: "require" needs a sandboxed target', async () => {
    const r = await requester("spawner", "chk-require-sb");
    await expectRefused(
      r,
      await spawn(r, { task: "t", agentId: "main", sandbox: "require" }),
      "forbidden",
      REQUIRE_SANDBOX("main"),
    );
    expect((await spawn(r, { task: "t", agentId: "ops", sandbox: "require" })).childSessionKey).toMatch(
      childKeyOf("ops"),
    );
    expect((await spawn(r, { task: "t", agentId: "main", sandbox: "inherit" })).childSessionKey).toMatch(
      childKeyOf("main"),
    );
  });

  it("8. an unknown model or thinking level is an error; model before thinking, thinking before attachments", async () => {
    const r = await requester("main", "chk-model");
    await expectRefused(
      r,
      await spawn(r, { task: "t", model: "gpt-imaginary", thinking: "ultra" }),
      "error",
      `Unknown model "gpt-imaginary". Configured models: ${modelList()}.`,
    );
    await expectRefused(
      r,
      await spawn(r, {
        task: "t",
        thinking: "ultra",
        attachments: [
          { name: "a", content: "x" },
          { name: "a", content: "y" },
        ],
      }),
      "error",
      THINKING("ultra"),
    );
    const applied = await spawn(r, { task: "t", model: "fake-model", thinking: "high" });
    expect(applied).toEqual({
      status: "accepted",
      childSessionKey: expect.stringMatching(childKeyOf("main")),
      runId: expect.stringMatching(UUID),
      mode: "run",
      note: NOTE,
      expectsCompletionMessage: true,
      context: "isolated",
      resolvedModel: "fake-model",
      modelApplied: true,
    });
  });

  it("9. cross-agent fork is an error", async () => {
    const r = await requester("main", "chk-fork");
    await expectRefused(
      r,
      await spawn(r, { task: "t", agentId: "research", context: "fork" }),
      "error",
      FORK,
    );
  });
});
