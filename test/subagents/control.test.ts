import { describe, expect, it } from "vitest";
import {
  ADMIN,
  answerDeferred,
  call,
  createSession,
  ended,
  getRun,
  getSession,
  nth,
  sendMessage,
  tool,
  transcript,
  uid,
  waitRun,
  webhookPosts,
} from "../support";
import { shardOf } from "../support/shards";
import {
  completionsAfter,
  expectedStats,
  requester,
  runningChild,
  runOf,
  settleAll,
  spawnOk,
  statusOf,
  subagents,
  textOf,
} from "../support/subagents";

describe("subagents list", () => {
  it("lists active then recent children with their fields, and a readable text", async () => {
    const r = await requester("spawner", "ctl-list");
    const alpha = await runningChild(r, "Alpha One", "long job alpha");
    const beta = await spawnOk(r, { task: "quick job", agentId: "worker", label: "beta" });
    await completionsAfter(r, [r, beta.child]);

    const listing = await subagents(r, {});
    const betaRun = ended(await runOf(beta.child, beta.runId));
    if (!betaRun.usage) throw new Error("beta's run has no usage");
    const alphaRun = await runOf(alpha.child, alpha.runId);
    expect(listing).toEqual({
      status: "ok",
      action: "list",
      requesterSessionKey: r,
      callerSessionKey: r,
      callerIsSubagent: false,
      total: 2,
      active: [
        {
          index: 1,
          runId: alpha.runId,
          sessionKey: alpha.child,
          label: "Alpha One",
          task: "long job alpha",
          status: "running",
          model: "webhook",
          startedAt: alphaRun.startedAt,
          runtimeMs: expect.any(Number),
          pendingDescendants: 0,
          runtime: expect.stringMatching(/^\d+s$/),
          deliveryStatus: "pending",
        },
      ],
      recent: [
        {
          index: 2,
          runId: beta.runId,
          sessionKey: beta.child,
          label: "beta",
          task: "quick job",
          status: "done",
          runtimeMs: betaRun.endedAt - betaRun.startedAt,
          model: "scripted/worker",
          totalTokens: betaRun.usage.total,
          startedAt: betaRun.startedAt,
          endedAt: betaRun.endedAt,
          pendingDescendants: 0,
          runtime: "0s",
          deliveryStatus: "delivered",
        },
      ],
      // The running child shows its runtime so far.
      text: expect.stringMatching(
        new RegExp(
          `^1\\. \\[running\\] Alpha One \\(\\d+s\\) — ${alpha.child}\n2\\. \\[done\\] beta \\(0s, ${betaRun.usage.total} tokens\\) — ${beta.child}$`,
        ),
      ),
    });
    // action defaults to list.
    // (The running child's runtime has moved on meanwhile: compare everything else.)
    const again = await subagents(r, { action: "list" });
    const withoutClock = (list: typeof listing) => ({
      ...list,
      active: list.active.map(({ runtimeMs, runtime, ...item }) => item),
      text: undefined,
    });
    expect(withoutClock(again)).toEqual(withoutClock(listing));

    // recentMinutes bounds the finished ones (1–1440): end beta's run two hours ago in the index.
    await shardOf(beta.child)
      .prepare("UPDATE session_index SET ended_at = ? WHERE session_key = ?")
      .bind(Date.now() - 120 * 60_000, beta.child)
      .run();
    expect((await subagents(r, {})).recent).toEqual([]);
    expect((await subagents(r, { recentMinutes: 121 })).recent.map((each) => each.sessionKey)).toEqual([
      beta.child,
    ]);
    expect((await subagents(r, { recentMinutes: 99_999 })).recent).toHaveLength(1);
    expect((await subagents(r, { recentMinutes: 0 })).recent).toEqual([]);

    await answerDeferred(alpha.child, "alpha done", [alpha.child, r]);
    await completionsAfter(r, [r, alpha.child], 2);
  });

  it("a child whose model reports no usage: its run, answer and session have none; its card, the list and the completion say unknown", async () => {
    const r = await requester("spawner", "ctl-unknown");
    const { child, runId } = await spawnOk(r, { task: "say hi", agentId: "model-echo", label: "mute" });
    const [completion] = await completionsAfter(r, [r, child]);
    const run = ended(await getRun(runId));
    expect(run.status).toBe("ok");
    expect(run).not.toHaveProperty("usage");
    const answer = (await transcript(child)).at(-1);
    expect(answer).toMatchObject({ role: "assistant", provider: "openai", stopReason: "stop", runId });
    expect(answer).not.toHaveProperty("usage");
    const row = (await getSession(child)).json;
    for (const field of ["inputTokens", "outputTokens", "totalTokens"]) expect(row).not.toHaveProperty(field);
    // A leaf has no session_status and its requester may not look across agents: a session of its own.
    const own = `agent:model-echo:ctl-unknown-${uid()}`;
    await createSession({ agentId: "model-echo", key: own });
    await waitRun(await sendMessage(own, "hi"));
    const card = (await tool("session_status", own)).statusText.split("\n");
    expect(card).toContain("Tokens: unknown • context unknown/128.0k • Compactions: 0");

    const listing = await subagents(r, {});
    expect(listing.recent.map((item) => item.sessionKey)).toEqual([child]);
    expect(listing.recent[0]).not.toHaveProperty("totalTokens");
    expect(listing.text).toMatch(new RegExp(`^1\\. \\[done\\] mute \\(\\d+s, tokens unknown\\) — ${child}$`));
    expect(textOf(completion).split("\n").at(-1)).toBe(expectedStats(run));
    expect(expectedStats(run)).toMatch(/^runtime \d+s • tokens unknown$/);
  });

  it("says so when there is nothing to list, and controls only the caller's own children", async () => {
    const r = await requester("spawner", "ctl-empty");
    expect(await subagents(r, {})).toEqual({
      status: "ok",
      action: "list",
      requesterSessionKey: r,
      callerSessionKey: r,
      callerIsSubagent: false,
      total: 0,
      active: [],
      recent: [],
      text: "No sub-agents spawned by this session.",
    });
    const other = await requester("spawner", "ctl-other");
    const theirs = await runningChild(other, "theirs");
    expect(await subagents(r, { action: "kill", target: theirs.child })).toEqual({
      status: "error",
      action: "kill",
      error: `Unknown sub-agent "${theirs.child}"; see subagents list.`,
    });
    expect(await subagents(r, { action: "steer", target: theirs.child, message: "stop" })).toEqual({
      status: "error",
      action: "steer",
      error: `Unknown sub-agent "${theirs.child}"; see subagents list.`,
    });
    expect(await statusOf(theirs.child, theirs.runId)).toBe("running");
    expect(await subagents(r, { action: "kill" })).toEqual({
      status: "error",
      action: "kill",
      error: "target required (last, an index, a key, a label or a runId)",
    });
    await answerDeferred(theirs.child, "done", [theirs.child, other]);
  });
});

describe("leaves control nothing", () => {
  it("a leaf child is not offered subagents or sessions_spawn, with its run token or through the operator", async () => {
    const r = await requester("spawner", "ctl-leaf");
    const { child } = await spawnOk(r, { task: "leaf work", agentId: "hook-sync-rec" });
    await settleAll([child, r]);
    const post = nth(await webhookPosts("hook-sync-rec", child), 0);
    for (const name of ["subagents", "sessions_spawn"]) {
      const invoked = await call("POST", "/tools/invoke", {
        token: post.runToken,
        body: { tool: name, args: {} },
      });
      expect(invoked.status, name).toBe(404);
      expect(invoked.json).toEqual({
        ok: false,
        error: { type: "not_found", message: `Tool not available: ${name}` },
      });
      const operator = await call("POST", `/v1/tools/${name}`, {
        token: ADMIN,
        body: { action: "list", task: "t" },
        headers: { "X-Switchboard-Session": child },
      });
      expect(operator.status, name).toBe(404);
    }
  });
});
