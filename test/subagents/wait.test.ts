import { describe, expect, it } from "vitest";
import {
  type ApiError,
  answerDeferred,
  call,
  callTool,
  type Invoked,
  nth,
  tool,
  webhookPosts,
} from "../support";
import {
  completionsAfter,
  completionsIn,
  expectedCompletion,
  requester,
  runningChild,
  runOf,
  spawnOk,
  statusOf,
  subagents,
  textOf,
  waitDeferred,
} from "../support/subagents";

/** `POST /tools/invoke` with a run token; answered with the tool's result. */
const invoke = (token: string, toolName: string, args: Record<string, unknown> = {}) =>
  call<Invoked>("POST", "/tools/invoke", { token, body: { tool: toolName, args } });

const seconds = (since: number) => (Date.now() - since) / 1000;

describe("subagents wait (SPEC §15)", () => {
  it("checks runIds, snapshots at 0, parks until a run ends, and leaves its completion to be delivered", async () => {
    const r = await requester("spawner", "wait-basic");
    const alpha = await runningChild(r, "alpha");
    // Input errors (400), before any storage, in OpenClaw's words.
    const none = await callTool<ApiError>("subagents", r, { action: "wait" });
    expect([none.status, none.json.error]).toEqual([
      400,
      { code: "bad_request", message: "runIds required" },
    ]);
    const many = Array.from({ length: 33 }, (_, i) => `run-${i}`);
    const tooMany = await callTool<ApiError>("subagents", r, { action: "wait", runIds: many });
    expect([tooMany.status, tooMany.json.error]).toEqual([
      400,
      { code: "bad_request", message: "At most 32 runIds may be waited for" },
    ]);

    // Deduplicated; 0 is a snapshot.
    const started = (await runOf(alpha.child, alpha.runId)).startedAt;
    const running = {
      runId: alpha.runId,
      sessionKey: alpha.child,
      label: "alpha",
      status: "running",
      deliveryStatus: "pending",
      startedAt: started,
    };
    expect(
      await subagents(r, { action: "wait", runIds: [alpha.runId, alpha.runId], timeoutSeconds: 0 }),
    ).toEqual({
      status: "ok",
      action: "wait",
      reason: "timeout",
      runs: [running],
      completed: [],
      attention: [],
    });

    // Parked server-side until the run ends, well before the timeout.
    const since = Date.now();
    const waiting = subagents(r, { action: "wait", runIds: [alpha.runId], timeoutSeconds: 30 });
    await answerDeferred(alpha.child, "alpha result", [alpha.child]);
    const woken = await waiting;
    expect(seconds(since)).toBeLessThan(20);
    const ended = await runOf(alpha.child, alpha.runId);
    expect(woken).toEqual({
      status: "ok",
      action: "wait",
      reason: "completed",
      runs: [
        {
          ...running,
          status: "done",
          outcome: { status: "ok" },
          deliveryStatus: expect.stringMatching(/^(pending|delivered)$/),
          endedAt: ended.endedAt,
        },
      ],
      completed: [alpha.runId],
      attention: [],
    });
    // Waiting consumed nothing: the completion still arrives, once, and then reads as delivered.
    expect(await completionsAfter(r, [r, alpha.child])).toHaveLength(1);
    const after = await subagents(r, { action: "wait", runIds: [alpha.runId], timeoutSeconds: 0 });
    expect(after.runs).toMatchObject([{ status: "done", deliveryStatus: "delivered" }]);
    expect((await subagents(r, {})).recent).toMatchObject([
      {
        runId: alpha.runId,
        deliveryStatus: "delivered",
        pendingDescendants: 0,
        runtime: expect.stringMatching(/^\d+s$/),
      },
    ]);
  });

  it("an id outside the caller's tree answers unavailable at once and leaks nothing; cancel refuses it", async () => {
    const r = await requester("spawner", "wait-outside");
    const other = await requester("spawner", "wait-other");
    const theirs = await runningChild(other, "theirs");
    const mine = await runningChild(r, "mine");
    const since = Date.now();
    const answer = await subagents(r, {
      action: "wait",
      runIds: [mine.runId, theirs.runId, "no-such-run"],
      timeoutSeconds: 30,
    });
    expect(seconds(since)).toBeLessThan(10);
    expect(answer).toEqual({
      status: "ok",
      action: "wait",
      reason: "unavailable",
      runs: [expect.objectContaining({ runId: mine.runId, status: "running" })],
      completed: [],
      attention: [],
      unavailable: [theirs.runId, "no-such-run"],
    });

    const outside = { status: "forbidden", error: "Run outside the controlled session tree." };
    expect(await subagents(r, { action: "cancel", runId: theirs.runId })).toEqual(outside);
    expect(await subagents(r, { action: "cancel", runId: "no-such-run" })).toEqual(outside);
    expect(await statusOf(theirs.child, theirs.runId)).toBe("running");
    expect(await subagents(r, { action: "cancel" })).toEqual({
      status: "error",
      action: "cancel",
      error: "runId or target required",
    });

    // Cancel is the kill cascade: the run ends killed and reports that to its requester.
    expect(await subagents(r, { action: "cancel", runId: mine.runId })).toEqual({
      status: "ok",
      action: "cancel",
      runId: mine.runId,
      killed: 1,
      labels: ["mine"],
      text: "Killed 1: mine.",
    });
    expect(await statusOf(mine.child, mine.runId)).toBe("killed");
    const [completion] = await completionsAfter(r, [r, mine.child]);
    expect(textOf(completion)).toBe(
      await expectedCompletion(mine.child, mine.runId, "mine", "failed: run killed", "(no output)"),
    );
    const alreadyFinished = {
      status: "ok",
      action: "cancel",
      runId: mine.runId,
      killed: 0,
      labels: [],
      text: "mine: already finished, nothing to cancel.",
    };
    expect(await subagents(r, { action: "cancel", runId: mine.runId })).toEqual(alreadyFinished);
    // Or by target, as kill takes it.
    expect(await subagents(r, { action: "cancel", target: "mine" })).toEqual(alreadyFinished);
    expect(await subagents(r, { action: "wait", runIds: [mine.runId], timeoutSeconds: 0 })).toMatchObject({
      reason: "completed",
      runs: [{ status: "killed", outcome: { status: "killed", error: "run killed" } }],
      completed: [mine.runId],
    });
    await answerDeferred(theirs.child, "done", [theirs.child, other]);
  });

  it("a run that yielded for its children is waiting, then finishes with the run its children's completion started", async () => {
    const top = await requester("spawner", "wait-yield");
    const middle = await spawnOk(top, { task: "orchestrate", agentId: "boss-async-rec", label: "middle" });
    await waitDeferred(middle.child, middle.runId);
    const post = nth(await webhookPosts("boss-async-rec", middle.child), 0);
    const deep = await tool("sessions_spawn", middle.child, { task: "deep work", label: "deep" });
    expect(deep.status).toBe("accepted");
    await waitDeferred(deep.childSessionKey, deep.runId);
    const yielded = await invoke(post.runToken, "sessions_yield", { message: "waiting for deep" });
    expect(yielded.json.result.details).toMatchObject({ status: "yielded" });

    const listed = await subagents(top, {});
    expect(listed).toMatchObject({ callerSessionKey: top, callerIsSubagent: false });
    expect([...listed.active, ...listed.recent]).toMatchObject([
      { sessionKey: middle.child, pendingDescendants: 1, deliveryStatus: "pending" },
    ]);
    const snapshot = await subagents(top, {
      action: "wait",
      runIds: [middle.runId, deep.runId],
      timeoutSeconds: 0,
    });
    expect(snapshot).toMatchObject({ reason: "timeout", completed: [], attention: [] });
    // The middle's run waits for its child; a grandchild's run is in the caller's tree too.
    expect(snapshot.runs).toEqual([
      {
        runId: middle.runId,
        sessionKey: middle.child,
        label: "middle",
        status: "waiting",
        deliveryStatus: "pending",
        startedAt: (await runOf(middle.child, middle.runId)).startedAt,
      },
      expect.objectContaining({ runId: deep.runId, sessionKey: deep.childSessionKey, status: "running" }),
    ]);

    const waiting = subagents(top, { action: "wait", runIds: [middle.runId], timeoutSeconds: 30 });
    await answerDeferred(deep.childSessionKey, "deep result", [deep.childSessionKey, middle.child]);
    const turn = await answerDeferred(middle.child, "all done", [middle.child]);
    const woken = await waiting;
    expect(woken).toMatchObject({ reason: "completed", completed: [middle.runId] });
    expect(woken.runs).toMatchObject([
      {
        runId: middle.runId,
        status: "done",
        outcome: { status: "ok" },
        endedAt: (await runOf(middle.child, turn)).endedAt,
      },
    ]);
    const [completion, ...more] = await completionsAfter(top, [top, middle.child, deep.childSessionKey]);
    expect(more).toEqual([]);
    expect(textOf(completion)).toBe(
      await expectedCompletion(middle.child, turn, "middle", "completed successfully", "all done"),
    );
    expect(await completionsIn(middle.child)).toHaveLength(1);
  });

  it("cancelling a run that waits for its children ends it killed, reported, with its descendants", async () => {
    const top = await requester("spawner", "wait-cancel-yield");
    const middle = await spawnOk(top, { task: "orchestrate", agentId: "boss-async-rec", label: "boss" });
    await waitDeferred(middle.child, middle.runId);
    const post = nth(await webhookPosts("boss-async-rec", middle.child), 0);
    const deep = await tool("sessions_spawn", middle.child, { task: "deep work", label: "deep" });
    await waitDeferred(deep.childSessionKey, deep.runId);
    await invoke(post.runToken, "sessions_yield", { message: "waiting for deep" });

    expect(await subagents(top, { action: "cancel", runId: middle.runId })).toEqual({
      status: "ok",
      action: "cancel",
      runId: middle.runId,
      killed: 1,
      labels: ["boss"],
      text: "Killed 1: boss.",
    });
    expect(await statusOf(deep.childSessionKey, deep.runId)).toBe("killed");
    const [completion, ...more] = await completionsAfter(top, [top, middle.child, deep.childSessionKey]);
    expect(more).toEqual([]);
    expect(textOf(completion)).toBe(
      await expectedCompletion(middle.child, middle.runId, "boss", "failed: run killed", "(no output)"),
    );
    expect(await subagents(top, { action: "wait", runIds: [middle.runId], timeoutSeconds: 0 })).toMatchObject(
      {
        reason: "completed",
        runs: [{ status: "killed", outcome: { status: "killed" }, deliveryStatus: "delivered" }],
      },
    );
  });
});
