import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { answerDeferred, storedRuns, stub, transcript, UUID } from "../support";
import {
  completionsAfter,
  expectedCompletion,
  requester,
  runningChild,
  runOf,
  statusOf,
  subagents,
  textOf,
  waitDeferred,
} from "../support/subagents";

describe("subagents steer", () => {
  it("restarts the child: the old run ends killed without a completion, a new run gets the message", async () => {
    const r = await requester("spawner", "ctl-steer");
    const child = await runningChild(r, "steerable");
    const steered = await subagents(r, { action: "steer", target: "steerable", message: "change of plan" });
    expect(steered).toEqual({
      status: "accepted",
      runId: expect.stringMatching(UUID),
      sessionKey: child.child,
      mode: "restart",
    });
    expect(steered.runId).not.toBe(child.runId);
    expect(await runOf(child.child, child.runId)).toMatchObject({
      status: "killed",
      error: "run restarted by steer",
    });
    await waitDeferred(child.child, steered.runId);
    const messages = await transcript(child.child);
    expect(messages.at(-1)).toMatchObject({
      role: "user",
      content: "change of plan",
      runId: steered.runId,
      provenance: { kind: "subagent_task", sourceSessionKey: r },
    });

    // A second steer within 2 seconds is rate limited and changes nothing.
    expect(await subagents(r, { action: "steer", target: "steerable", message: "again" })).toEqual({
      status: "rate_limited",
      action: "steer",
      error: "One steer per sub-agent every 2 seconds; try again shortly.",
    });
    expect(await statusOf(child.child, steered.runId)).toBe("running");
    // Once 2 seconds have passed (moved back in storage, no sleeping), it is allowed again.
    await runInDurableObject(stub(child.child), (_instance, state) => {
      state.storage.sql.exec("UPDATE steer SET at = at - 2000");
    });
    const again = await subagents(r, { action: "steer", target: "1", message: "final plan" });
    expect(again).toMatchObject({ status: "accepted", sessionKey: child.child, mode: "restart" });
    expect(await runOf(child.child, steered.runId)).toMatchObject({ status: "killed" });

    await answerDeferred(child.child, "done per the final plan", [child.child, r]);
    const [completion, ...more] = await completionsAfter(r, [r, child.child]);
    expect(more).toEqual([]);
    expect(textOf(completion)).toBe(
      await expectedCompletion(
        child.child,
        again.runId,
        "steerable",
        "completed successfully",
        "done per the final plan",
      ),
    );
  });

  it("refuses a message over 4000 characters, or none; 4000 is fine", async () => {
    const r = await requester("spawner", "ctl-steer-long");
    const child = await runningChild(r, "wordy");
    expect(await subagents(r, { action: "steer", target: "wordy", message: "x".repeat(4001) })).toEqual({
      status: "error",
      action: "steer",
      error: "message longer than 4000 characters",
    });
    expect(await subagents(r, { action: "steer", target: "wordy" })).toEqual({
      status: "error",
      action: "steer",
      error: "message required to steer",
    });
    expect((await storedRuns(child.child)).map((run) => run.status)).toEqual(["running"]);
    const ok = await subagents(r, { action: "steer", target: "wordy", message: "y".repeat(4000) });
    expect(ok).toMatchObject({ status: "accepted" });
    await waitDeferred(child.child, ok.runId);
    await answerDeferred(child.child, "done", [child.child, r]);
    await completionsAfter(r, [r, child.child]);
  });
});
