import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  answerDeferred,
  driveUntil,
  evict,
  expectOnlyPosts,
  outboxSize,
  runAlarms,
  storedRuns,
  stub,
  transcript,
} from "../support";
import { failDeliveries } from "../support/faults";
import {
  completionsAfter,
  completionsIn,
  expectedCompletion,
  requester,
  runOf,
  settleAll,
  spawnOk,
  textOf,
} from "../support/subagents";

/** The outbox row of the completion a child still owes, if any. */
function pendingCompletion(child: string) {
  return runInDurableObject(
    stub(child),
    (_instance, state) =>
      state.storage.sql
        .exec<{ attempts: number; last_error: string | null }>(
          "SELECT attempts, last_error FROM outbox WHERE kind = 'turn' AND dedupe_key LIKE 'completion:%'",
        )
        .toArray()[0],
  );
}

async function evictAll(keys: string[]): Promise<void> {
  for (const key of keys) await evict(key);
}

describe("the completion announce is exactly-once under faults", () => {
  it("survives failing twice: retried by the child's alarm, delivered once", async () => {
    const r = await requester("spawner", "dur-fail", true);
    const { child, runId } = await spawnOk(r, {
      task: "flaky delivery",
      agentId: "hook-async",
      label: "flaky",
    });
    await driveUntil(
      [child],
      async () => ((await storedRuns(child))[0]?.deferred === 1 ? true : undefined),
      "202",
    );
    const faults = await failDeliveries(child, 2);

    await answerDeferred(child, "the result", [child]);
    expect(faults).toEqual({ calls: 1, failed: 1 });
    expect(await pendingCompletion(child)).toEqual({ attempts: 1, last_error: "requester unavailable" });
    expect(await completionsIn(r)).toEqual([]);

    // Each round moves the clock to the retry time: the second attempt fails too, the third gets through.
    await runAlarms([child]);
    expect(faults).toEqual({ calls: 2, failed: 2 });
    await runAlarms([child]);
    expect(faults).toEqual({ calls: 3, failed: 2 });
    expect(await pendingCompletion(child)).toBeUndefined();
    const [completion, ...more] = await completionsAfter(r, [r, child]);
    expect(more).toEqual([]);
    expect(textOf(completion)).toBe(
      await expectedCompletion(child, runId, "flaky", "completed successfully", "the result"),
    );
    // Nothing more arrives, however often the alarms run.
    await runAlarms([child, r], 3);
    expect(await completionsIn(r)).toHaveLength(1);
    expect(faults.calls).toBe(3);
    await expectOnlyPosts(r, [`Update: ${textOf(completion)}`]);
  });

  it("a delivery whose answer is lost twice is retried and deduplicated by the requester", async () => {
    const r = await requester("spawner", "dur-lost-ack");
    const { child, runId } = await spawnOk(r, { task: "lost answers", agentId: "hook-async" });
    await driveUntil(
      [child],
      async () => ((await storedRuns(child))[0]?.deferred === 1 ? true : undefined),
      "202",
    );
    const faults = await failDeliveries(child, 2, true);
    await answerDeferred(child, "delivered thrice", [child]);
    await driveUntil(
      [child],
      async () => ((await outboxSize(child)) === 0 ? true : undefined),
      "the retries",
    );
    expect(faults).toEqual({ calls: 3, failed: 2 });
    expect(await outboxSize(child)).toBe(0);
    // One delivery record, delivered on its third attempt (SPEC §16).
    const ledger = await runInDurableObject(stub(child), (_instance, state) =>
      state.storage.sql.exec("SELECT kind, status, attempts FROM delivery").toArray(),
    );
    expect(ledger).toEqual([{ kind: "completion", status: "delivered", attempts: 3 }]);
    const completions = await completionsAfter(r, [r, child]);
    expect(completions).toHaveLength(1);
    expect(completions[0]?.id).toBe(`completion:${runId}`);
    // One turn for it, not three.
    expect((await storedRuns(r)).map((run) => run.status)).toEqual(["ok"]);
  });

  it("evicting the child, then the requester, at each step of the announce neither loses nor repeats it", async () => {
    // Both are webhook agents that answer 202: every run stays in flight until the test answers it.
    const r = await requester("hook-async", "dur-steps", true);
    const { child, runId } = await spawnOk(r, { task: "step by step", label: "steps" });
    await driveUntil(
      [child],
      async () => ((await storedRuns(child))[0]?.deferred === 1 ? true : undefined),
      "202",
    );
    await evictAll([child, r]);

    // 1. The child's run ends, but its completion cannot be delivered yet.
    await failDeliveries(child, 1);
    await answerDeferred(child, "step result", [child]);
    expect(await pendingCompletion(child)).toMatchObject({ attempts: 1 });
    await evictAll([child, r]);
    expect(await completionsIn(r)).toEqual([]);

    // 2. The child's alarm delivers it at its retry time; the requester's turn is queued. Evict both again.
    await runAlarms([child]);
    expect(await pendingCompletion(child)).toBeUndefined();
    expect(await completionsIn(r)).toHaveLength(1);
    await evictAll([child, r]);

    // 3. During the requester's turn (waiting for its agent), evict both once more.
    await answerDeferred(r, "update for the channel", [r, child], () => evictAll([child, r]));
    await settleAll([r, child]);

    const completions = await completionsIn(r);
    expect(completions).toHaveLength(1);
    expect(textOf(completions[0])).toBe(
      await expectedCompletion(child, runId, "steps", "completed successfully", "step result"),
    );
    expect((await storedRuns(r)).map((run) => [run.status, run.reply])).toEqual([
      ["ok", "update for the channel"],
    ]);
    expect((await storedRuns(child)).map((run) => [run.status, run.attempts])).toEqual([["ok", 1]]);
    expect((await transcript(r)).map((message) => message.role)).toEqual(["user", "assistant"]);
    await expectOnlyPosts(r, ["update for the channel"]);
  });

  it("evicting both objects on every round of a whole spawn-and-announce still gives one completion and one post", async () => {
    const r = await requester("main", "dur-chaos", true);
    const { child, runId } = await spawnOk(r, { task: "under chaos", agentId: "research" });
    await driveUntil(
      [r, child],
      async () => {
        await evictAll([child, r]);
        return (await completionsIn(r)).length > 0 && (await settledBoth(r, child)) ? true : undefined;
      },
      "the announce under evictions",
    );
    const completions = await completionsIn(r);
    expect(completions).toHaveLength(1);
    expect((await runOf(child, runId)).status).toBe("ok");
    expect((await storedRuns(r)).map((run) => run.status)).toEqual(["ok"]);
    const text = textOf(completions[0]);
    await expectOnlyPosts(r, [`Got it: ${text}`]);
  });
});

async function settledBoth(a: string, b: string): Promise<boolean> {
  for (const key of [a, b]) {
    const runs = await storedRuns(key);
    if (runs.length === 0 || runs.some((run) => run.status === "queued" || run.status === "running"))
      return false;
    if ((await outboxSize(key)) > 0) return false;
  }
  return true;
}
