import { describe, expect, it } from "vitest";
import { answerDeferred, driveUntil, runAlarms, sendMessage, storedRuns, transcript } from "../support";
import { completionsAfter, indexedChildren, requester, runOf, spawnOk } from "./fixtures";

/** Waits until the run is waiting for its webhook agent (the `capped` agent answers 202). */
function running(key: string, runId: string) {
  return driveUntil(
    [key],
    async () => (await storedRuns(key)).find((run) => run.runId === runId && run.deferred === 1),
    `run ${runId} in flight`,
  );
}

describe("maxConcurrent (the capped agent allows 1 sub-agent run in flight)", () => {
  it("keeps a second child's run queued, not rejected, while the first runs; then runs it", async () => {
    const r = await requester("spawner", "cap");
    const first = await spawnOk(r, { task: "first job", agentId: "capped", label: "first" });
    await running(first.child, first.runId);

    const second = await spawnOk(r, { task: "second job", agentId: "capped", label: "second" });
    expect(second.result.status).toBe("accepted");
    // Another requester's child of the same agent waits too: the cap is per agent.
    const r2 = await requester("spawner", "cap-other");
    const third = await spawnOk(r2, { task: "third job", agentId: "capped", label: "third" });
    // However often their alarms run, they stay queued with their task recorded.
    await runAlarms([second.child, third.child], 5);
    expect((await storedRuns(second.child)).map((run) => run.status)).toEqual(["queued"]);
    expect((await storedRuns(third.child)).map((run) => run.status)).toEqual(["queued"]);
    expect((await transcript(second.child)).map((message) => message.role)).toEqual(["user"]);
    // Queued children count as active (subagents list, maxChildrenPerAgent).
    expect((await indexedChildren(r)).map((row) => [row.label, row.status])).toEqual([
      ["first", "running"],
      ["second", null],
    ]);

    // A top-level session of the same agent is not a sub-agent: not capped.
    const top = await requester("capped", "cap-top");
    const topRun = await sendMessage(top, "top-level work");
    await running(top, topRun);

    await answerDeferred(first.child, "first done", [first.child, r]);
    // One of the waiting two gets the slot; the other keeps waiting until that one ends.
    const [next, after] = await driveUntil(
      [second.child, third.child],
      async () => {
        const [a] = await storedRuns(second.child);
        const [b] = await storedRuns(third.child);
        if (a?.status === "running") return [second, third];
        if (b?.status === "running") return [third, second];
        return undefined;
      },
      "a waiting child to start",
    );
    if (!next || !after) throw new Error("unreachable");
    await runAlarms([after.child], 3);
    expect((await storedRuns(after.child)).map((run) => run.status)).toEqual(["queued"]);
    await answerDeferred(next.child, "next done", [next.child]);
    await answerDeferred(after.child, "after done", [after.child]);
    await answerDeferred(top, "top done", [top]);

    for (const each of [first, second, third])
      expect((await runOf(each.child, each.runId)).status).toBe("ok");
    await completionsAfter(r, [r, first.child, second.child], 2);
    await completionsAfter(r2, [r2, third.child], 1);
  });
});
