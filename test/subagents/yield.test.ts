import { describe, expect, it } from "vitest";
import {
  ADMIN,
  answerDeferred,
  call,
  driveUntil,
  expectOnlyPosts,
  type Invoked,
  nth,
  sendMessage,
  session,
  storedRuns,
  tool,
  transcript,
  webhookPosts,
} from "../support";
import {
  completionsAfter,
  completionsIn,
  expectedCompletion,
  firstBlockText,
  requester,
  runOf,
  settleAll,
  spawnOk,
  textOf,
} from "../support/subagents";

/** `POST /tools/invoke` with a run token; answered with the tool's result. */
const invoke = (token: string, toolName: string, args: Record<string, unknown> = {}) =>
  call<Invoked>("POST", "/tools/invoke", { token, body: { tool: toolName, args } });

describe("sessions_yield", () => {
  it("is an error without a current run: an operator call, or a run token whose run has ended", async () => {
    const r = await requester("main", "yield-none");
    expect(await tool("sessions_yield", r, {})).toEqual({
      status: "error",
      error: "sessions_yield ends a run: call it from inside a run (with its run token).",
    });
    const key = await requester("hook-sync-rec", "yield-ended");
    const runId = await sendMessage(key, "hello");
    await settleAll([key]);
    const post = nth(await webhookPosts("hook-sync-rec", key), 0);
    expect(post.runId).toBe(runId);
    const late = await invoke(post.runToken, "sessions_yield");
    expect(late.status).toBe(200);
    expect(late.json.result.details).toEqual({ status: "error", error: "There is no current run to yield." });
    expect(await transcript(key)).toHaveLength(2);
  });

  it("from inside a run: the run ends cleanly, the message is kept as hidden context, a completion starts a fresh turn", async () => {
    const r = await requester("spawner", "yield-run", true);
    const child = await spawnOk(r, { task: "long errand", agentId: "hook-async", label: "errand" });
    // The spawner's rule for "yield now" calls sessions_yield (test/support/test-config.ts).
    const yieldRunId = await sendMessage(r, "yield now");
    await driveUntil(
      [r],
      async () => ((await runOf(r, yieldRunId)).status === "ok" ? true : undefined),
      "the yield",
    );
    const yielded = await runOf(r, yieldRunId);
    expect(yielded.reply).toBeUndefined();
    expect(yielded.error).toBeUndefined();
    const messages = await transcript(r);
    expect(messages.map((message) => message.role)).toEqual(["user", "system", "assistant", "toolResult"]);
    expect(messages[1]).toMatchObject({
      role: "system",
      content: "waiting for my sub-agent",
      hidden: true,
      runId: yieldRunId,
      provenance: { kind: "system" },
    });
    expect(JSON.parse(firstBlockText(messages[3]))).toEqual({
      status: "yielded",
      message: "waiting for my sub-agent",
    });

    // The child's completion starts a fresh turn, whose update is posted.
    await answerDeferred(child.child, "errand finished", [child.child, r]);
    const [completion] = await completionsAfter(r, [r, child.child]);
    const runs = await storedRuns(r);
    expect(runs.map((run) => [run.runId === yieldRunId, run.status])).toEqual([
      [true, "ok"],
      [false, "ok"],
    ]);
    expect(runs[1]?.reply).toBe(`Update: ${textOf(completion)}`);
    await expectOnlyPosts(r, [`Update: ${textOf(completion)}`]);
  });

  it("a webhook agent that answered 202 yields with its run token; the next turn sees the hidden message", async () => {
    const h = await requester("hook-async-rec", "yield-hook");
    const child = await spawnOk(h, { task: "background work" });
    await settleAll([h]);
    const runId = await sendMessage(h, "work, then yield");
    const post = await driveUntil(
      [h],
      async () => (await webhookPosts("hook-async-rec", h)).find((each) => each.runId === runId),
      "the webhook post",
    );
    await driveUntil(
      [h],
      async () =>
        (await storedRuns(h)).find((run) => run.runId === runId)?.deferred === 1 ? true : undefined,
      "the 202",
    );
    const yielded = await invoke(post.runToken, "sessions_yield");
    expect(yielded.status, yielded.text).toBe(200);
    expect(yielded.json.result.details).toEqual({ status: "yielded", message: "Turn yielded." });
    expect(await runOf(h, runId)).toMatchObject({ status: "ok" });
    // A result posted for the yielded run afterwards changes nothing.
    const late = await session(h).completeDeferredRun(runId, { text: "too late" });
    expect(late).toMatchObject({ ok: true, value: { status: "ok" } });
    expect((await runOf(h, runId)).reply).toBeUndefined();

    await answerDeferred(child.child, "background done", [child.child, h]);
    await driveUntil(
      [h],
      async () => ((await storedRuns(h)).length === 2 ? true : undefined),
      "the completion turn",
    );
    const turnPost = await driveUntil(
      [h],
      async () =>
        (await webhookPosts("hook-async-rec", h)).find(
          (each) => each.provenance?.kind === "subagent_completion",
        ),
      "the completion turn's webhook post",
    );
    expect(turnPost.history).toContainEqual(
      expect.objectContaining({ role: "system", content: "Turn yielded.", hidden: true, runId }),
    );
    await answerDeferred(h, "told the user", [h]);
    await settleAll([h, child.child]);
    expect((await transcript(h)).filter((message) => message.content === "too late")).toEqual([]);
    expect(await call("GET", `/v1/runs/${runId}`, { token: ADMIN })).toMatchObject({ status: 200 });
  });
});

describe("sessions_yield in a sub-agent", () => {
  it("an orchestrator child yields while its own child works; the top level gets one completion, after both", async () => {
    const top = await requester("spawner", "yield-orch");
    const middle = await spawnOk(top, { task: "orchestrate", agentId: "boss-async-rec", label: "middle" });
    const post = await driveUntil(
      [middle.child],
      async () => (await webhookPosts("boss-async-rec", middle.child))[0],
      "the middle's webhook post",
    );
    await driveUntil(
      [middle.child],
      async () => ((await storedRuns(middle.child))[0]?.deferred === 1 ? true : undefined),
      "the 202",
    );
    // The middle spawns a worker of its own (as an orchestrator, maxSpawnDepth 2), then yields.
    const worker = await tool("sessions_spawn", middle.child, {
      task: "deep work",
      label: "deep",
    });
    expect(worker.status).toBe("accepted");
    const yielded = await invoke(post.runToken, "sessions_yield", { message: "waiting for deep" });
    expect(yielded.json.result.details).toEqual({ status: "yielded", message: "waiting for deep" });
    await settleAll([top]);
    // The yielded run reports nothing: the top level is still waiting.
    expect(await completionsIn(top)).toEqual([]);

    await answerDeferred(worker.childSessionKey, "deep result", [worker.childSessionKey, middle.child]);
    // The worker's completion starts the middle's fresh turn; its answer is what the top level hears.
    const turn = await answerDeferred(middle.child, "all done", [middle.child, top]);
    const [completion, ...more] = await completionsAfter(top, [top, middle.child, worker.childSessionKey]);
    expect(more).toEqual([]);
    expect(textOf(completion)).toBe(
      await expectedCompletion(middle.child, turn, "middle", "completed successfully", "all done"),
    );
  });

  it("a sub-agent with no running children cannot yield: nothing would ever wake it", async () => {
    const top = await requester("spawner", "yield-leaf");
    // An orchestrator (a leaf is not offered sessions_yield at all) that spawned nothing.
    const leaf = await spawnOk(top, { task: "simple work", agentId: "boss-async-rec", label: "leaf" });
    const post = await driveUntil(
      [leaf.child],
      async () => (await webhookPosts("boss-async-rec", leaf.child))[0],
      "the leaf's webhook post",
    );
    await driveUntil(
      [leaf.child],
      async () => ((await storedRuns(leaf.child))[0]?.deferred === 1 ? true : undefined),
      "the 202",
    );
    const refused = await invoke(post.runToken, "sessions_yield");
    expect(refused.json.result.details).toEqual({
      status: "error",
      error:
        "You have no running sub-agents to wait for: finish your task with your answer instead of yielding.",
    });
    expect((await storedRuns(leaf.child)).map((run) => run.status)).toEqual(["running"]);
    await answerDeferred(leaf.child, "answered", [leaf.child, top]);
    expect(await completionsAfter(top, [top, leaf.child])).toHaveLength(1);
  });
});
