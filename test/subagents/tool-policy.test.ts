import { describe, expect, it } from "vitest";
import {
  call,
  type Invoked,
  type InvokeError,
  modelRequests,
  nth,
  toolWithConfig,
  uid,
  webhookPosts,
  workerConfigWith,
} from "../support";
import { requester, runOf, settleAll, spawnOk } from "../support/subagents";

const CODING = [
  "sessions_list",
  "sessions_history",
  "sessions_send",
  "sessions_spawn",
  "sessions_yield",
  "subagents",
  "agents_list",
  "session_status",
  "sessions",
  "sessions_search",
  "agents_wait",
  "cron",
];

/** `POST /tools/invoke` with a run token; `Body` is the answer expected (`Invoked<tool>` or `InvokeError`). */
const invoke = <Body = Invoked>(token: string, tool: string, args: Record<string, unknown> = {}) =>
  call<Body>("POST", "/tools/invoke", { token, body: { tool, args } });

describe("the sub-agent tool policy, applied to runs (SPEC §5.4)", () => {
  it("a default child (maxSpawnDepth 1, a leaf) is offered no session tools, not even sessions_yield", async () => {
    const r = await requester("spawner", "pol-leaf");
    const { child } = await spawnOk(r, { task: "leaf work", agentId: "hook-sync-rec" });
    await settleAll([child, r]);
    const post = nth(await webhookPosts("hook-sync-rec", child), 0);
    // A leaf spawns nothing, so sessions_yield (which waits for children) could only fail.
    expect(post.tools).toEqual([]);
    // The same agent at the top level gets its whole profile.
    const top = await requester("hook-sync-rec", "pol-top");
    await call("POST", `/v1/sessions/${encodeURIComponent(top)}/messages`, {
      token: "test-admin-token",
      body: { text: "hello" },
    });
    await settleAll([top]);
    const topPost = nth(await webhookPosts("hook-sync-rec", top), 0);
    expect(topPost.tools.map((tool) => tool.name).sort()).toEqual([...CODING].sort());
    // What the child is not offered, its run token cannot call either.
    for (const name of CODING) {
      expect((await invoke(post.runToken, name)).status, name).toBe(404);
    }
  });

  it("an openai child is offered the same (no tools at all), and a call to a tool it lacks is refused", async () => {
    const r = await requester("spawner", "pol-openai");
    const marker = `policy-${uid()}`;
    const { child, runId } = await spawnOk(r, { task: marker, agentId: "model-tools-rec" });
    await settleAll([child, r]);
    const requests = await modelRequests("model-tools-rec", marker);
    const [first, second] = [nth(requests, 0), nth(requests, 1)];
    expect(first.tools).toBeUndefined();
    // The fake model asks for sessions_list anyway (its scenario); the run's tool loop refuses it.
    const toolMessage = nth(
      second.messages.filter((message) => message.role === "tool"),
      0,
    );
    expect(JSON.parse(toolMessage.content ?? "")).toEqual({
      status: "error",
      error: "Tool not available: sessions_list",
    });
    expect((await runOf(child, runId)).status).toBe("ok");
  });

  it("a depth-1 orchestrator (maxSpawnDepth 2) gets spawn, subagents, list, history and agents_wait, never send/status/agents_list", async () => {
    const r = await requester("spawner", "pol-boss");
    const { child } = await spawnOk(r, { task: "orchestrate", agentId: "boss-rec" });
    await settleAll([child, r]);
    const post = nth(await webhookPosts("boss-rec", child), 0);
    expect(post.tools.map((tool) => tool.name).sort()).toEqual([
      "agents_wait",
      "sessions",
      "sessions_history",
      "sessions_list",
      "sessions_search",
      "sessions_spawn",
      "sessions_yield",
      "subagents",
    ]);
    for (const name of ["sessions_send", "session_status", "agents_list"]) {
      const refused = await invoke<InvokeError>(post.runToken, name);
      expect(refused.status, name).toBe(404);
      expect(refused.json.error).toEqual({ type: "not_found", message: `Tool not available: ${name}` });
    }
    const listed = await invoke<Invoked<"subagents">>(post.runToken, "subagents");
    expect(listed.status).toBe(200);
    expect(listed.json.result.details).toMatchObject({
      status: "ok",
      requesterSessionKey: child,
      callerSessionKey: child,
      callerIsSubagent: true,
      total: 0,
    });
  });

  it("tools.subagents.tools adjusts the policy, and deny always wins", async () => {
    const r = await requester("spawner", "pol-config");
    const leaf = await spawnOk(r, { task: "leaf", agentId: "worker" });
    const boss = await spawnOk(r, { task: "boss", agentId: "boss-rec" });
    await settleAll([leaf.child, boss.child, r]);
    const policy = (tools: Record<string, unknown>) =>
      workerConfigWith((document) => {
        document.tools.subagents = { tools };
      });
    // alsoAllow gives a leaf back a tool of its profile...
    const listed = await toolWithConfig(
      policy({ alsoAllow: ["sessions_history"] }),
      "sessions_history",
      leaf.child,
      {
        sessionKey: leaf.child,
      },
    );
    expect(listed).toMatchObject({ sessionKey: leaf.child });
    // ...unless it is also denied.
    await expect(
      toolWithConfig(
        policy({ alsoAllow: ["sessions_history"], deny: ["sessions_history"] }),
        "sessions_history",
        leaf.child,
        {
          sessionKey: leaf.child,
        },
      ),
    ).rejects.toThrow("sessions_history: Tool not available: sessions_history");
    // deny takes an orchestrator's own tools away; allow replaces the list, deny still wins over it.
    await expect(
      toolWithConfig(policy({ deny: ["sessions_spawn"] }), "sessions_spawn", boss.child, { task: "t" }),
    ).rejects.toThrow("sessions_spawn: Tool not available: sessions_spawn");
    await expect(
      toolWithConfig(
        policy({ allow: ["subagents", "sessions_spawn"], deny: ["subagents"] }),
        "subagents",
        boss.child,
      ),
    ).rejects.toThrow("subagents: Tool not available: subagents");
    await expect(
      toolWithConfig(policy({ allow: ["subagents"] }), "sessions_list", boss.child),
    ).rejects.toThrow("sessions_list: Tool not available: sessions_list");
    expect(await toolWithConfig(policy({ allow: ["subagents"] }), "subagents", boss.child)).toMatchObject({
      status: "ok",
    });
    // A top-level session is not a sub-agent: the policy does not touch it.
    expect(await toolWithConfig(policy({ deny: ["sessions_list"] }), "sessions_list", r)).toMatchObject({
      count: expect.any(Number),
    });
  });
});
