import { describe, expect, it } from "vitest";
import { answerDeferred, driveUntil, storedRuns, transcript } from "../support";
import {
  completionsAfter,
  completionsIn,
  expectedCompletion,
  indexedChildren,
  requester,
  settleAll,
  spawnOk,
  subagents,
  textOf,
  waitDeferred,
} from "../support/subagents";

/** The hidden note a run leaves when it ends with work of its task outstanding (src/session/runs/outstanding-work.ts). */
const WAITING_NOTE =
  "Turn ended while sub-agents were still working: their completions start the next turns, and the task's result is reported after the last one.";

/**
 * A depth-1 orchestrator (a webhook agent whose runs wait for the test's answer) spawned by `top`, its
 * first run waiting for that answer.
 */
async function orchestrator(prefix: string) {
  const top = await requester("spawner", prefix);
  const middle = await spawnOk(top, { task: "orchestrate", agentId: "boss-async-rec", label: "middle" });
  await waitDeferred(middle.child, middle.runId);
  return { top, middle: middle.child, taskRun: middle.runId };
}

/** What `subagents wait` (a snapshot) and `subagents list` say of the orchestrator's task run. */
async function seenFromTop(top: string, taskRun: string) {
  const waited = await subagents(top, { action: "wait", runIds: [taskRun], timeoutSeconds: 0 });
  const listed = await subagents(top, {});
  return {
    status: waited.runs?.[0]?.status,
    deliveryStatus: waited.runs?.[0]?.deliveryStatus,
    listed: [...(listed.active ?? []), ...(listed.recent ?? [])].map((item) => item.deliveryStatus),
  };
}

describe("an orchestrator that ends its run without sessions_yield (implicit yield)", () => {
  it("waits for its two children: one completion reaches its requester, with its final update", async () => {
    const { top, middle, taskRun } = await orchestrator("implicit");
    // The orchestrator spawns two workers (as its own tool calls would), then answers without yielding.
    const one = await spawnOk(middle, { task: "part one", label: "one" });
    const two = await spawnOk(middle, { task: "part two", label: "two" });
    await answerDeferred(middle, "delegated", [middle]);
    await settleAll([middle, top]);
    expect(await completionsIn(top)).toEqual([]);
    expect((await transcript(middle)).filter((message) => message.role === "system")).toEqual([
      expect.objectContaining({ role: "system", content: WAITING_NOTE, hidden: true, runId: taskRun }),
    ]);
    const waiting = { status: "waiting", deliveryStatus: "pending", listed: ["pending"] };
    expect(await seenFromTop(top, taskRun)).toEqual(waiting);

    // The first worker's completion starts a run that ends while the second still works: it waits too.
    await answerDeferred(one.child, "one done", [one.child, middle]);
    const between = await answerDeferred(middle, "one of two in", [middle]);
    await settleAll([middle, top, one.child]);
    expect(await completionsIn(top)).toEqual([]);
    expect(await seenFromTop(top, taskRun)).toEqual(waiting);

    // The second worker's completion starts the run that reports the task.
    await answerDeferred(two.child, "two done", [two.child, middle]);
    const last = await answerDeferred(middle, "both parts done", [middle, top]);
    const completions = await completionsAfter(top, [top, middle, one.child, two.child]);
    expect(completions).toHaveLength(1);
    expect(textOf(completions[0])).toBe(
      await expectedCompletion(middle, last, "middle", "completed successfully", "both parts done"),
    );
    expect((await storedRuns(middle)).map((run) => [run.runId, run.status, run.reply])).toEqual([
      [taskRun, "ok", "delegated"],
      [between, "ok", "one of two in"],
      [last, "ok", "both parts done"],
    ]);
    expect(await seenFromTop(top, taskRun)).toEqual({
      status: "done",
      deliveryStatus: "delivered",
      listed: ["delivered"],
    });
  });

  it("waits for completions already queued; a completion after the task reported sends nothing upstream", async () => {
    const { top, middle, taskRun } = await orchestrator("implicit-queued");
    const one = await spawnOk(middle, { task: "part one", label: "one" });
    const two = await spawnOk(middle, { task: "part two", label: "two" });
    // Both workers finish while the orchestrator's first run is still underway: their completions queue.
    await answerDeferred(one.child, "one done", [one.child]);
    await answerDeferred(two.child, "two done", [two.child]);
    await driveUntil(
      [one.child, two.child, middle],
      async () =>
        (await storedRuns(middle)).filter((run) => run.status === "queued").length === 2 ? true : undefined,
      "both completions queued",
    );
    expect((await indexedChildren(middle)).map((child) => child.status)).toEqual(["done", "done"]);
    await answerDeferred(middle, "delegated", [middle]);
    await answerDeferred(middle, "one of two in", [middle]);
    const last = await answerDeferred(middle, "both parts done", [middle, top]);
    const [completion, ...more] = await completionsAfter(top, [top, middle]);
    expect(more).toEqual([]);
    expect(textOf(completion)).toBe(
      await expectedCompletion(middle, last, "middle", "completed successfully", "both parts done"),
    );

    // A child whose completion comes after the task reported: its run answers in the orchestrator's own
    // transcript, and nothing more goes upstream.
    const late = await spawnOk(middle, { task: "part three", label: "three" });
    await answerDeferred(late.child, "three done", [late.child, middle]);
    await answerDeferred(middle, "three is in too", [middle]);
    await settleAll([top, middle, late.child]);
    expect((await completionsIn(top)).map(textOf)).toEqual([textOf(completion)]);
    expect((await transcript(middle)).at(-1)).toMatchObject({
      role: "assistant",
      content: [{ type: "text", text: "three is in too" }],
    });
    expect((await subagents(top, { action: "wait", runIds: [taskRun], timeoutSeconds: 0 })).runs).toEqual([
      expect.objectContaining({ status: "done", deliveryStatus: "delivered" }),
    ]);
  });
});
