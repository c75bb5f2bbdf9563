import { describe, expect, it } from "vitest";
import { agentIn, storedRuns, toolWithConfig, workerConfigWith } from "../support";
import {
  completionsAfter,
  completionsIn,
  expectedCompletion,
  requester,
  runningChild,
  spawnOk,
  statusOf,
  subagents,
  textOf,
  waitDeferred,
} from "../support/subagents";

describe("subagents kill", () => {
  it("resolves label, label prefix and runId prefix targets, and each killed run announces `failed`", async () => {
    const r = await requester("spawner", "ctl-kill");
    const prod = await runningChild(r, "Deploy Prod");
    const staging = await runningChild(r, "deploy-staging");
    const report = await runningChild(r, "Report");

    expect(await subagents(r, { action: "kill", target: "REPORT" })).toEqual({
      status: "ok",
      action: "kill",
      killed: 1,
      labels: ["Report"],
      text: "Killed 1: Report.",
    });
    expect(await subagents(r, { action: "kill", target: "deploy" })).toEqual({
      status: "error",
      action: "kill",
      error: '"deploy" matches 2 sub-agents by label prefix; be more specific.',
    });
    expect(await subagents(r, { action: "kill", target: "deploy-s" })).toMatchObject({
      killed: 1,
      labels: ["deploy-staging"],
    });
    // Up to the first dash: never all digits, which would read as a list index.
    expect(await subagents(r, { action: "kill", target: prod.runId.slice(0, 9) })).toMatchObject({
      killed: 1,
      labels: ["Deploy Prod"],
    });
    for (const each of [prod, staging, report]) expect(await statusOf(each.child, each.runId)).toBe("killed");

    const completions = await completionsAfter(r, [r, prod.child, staging.child, report.child], 3);
    expect(completions).toHaveLength(3);
    const byChild = new Map(
      completions.map((message) => [message.provenance?.sourceSessionKey, textOf(message)]),
    );
    for (const each of [prod, staging, report]) {
      const label = each === prod ? "Deploy Prod" : each === staging ? "deploy-staging" : "Report";
      expect(byChild.get(each.child)).toBe(
        await expectedCompletion(each.child, each.runId, label, "failed: run killed", "(no output)"),
      );
    }
    // Killing again: already finished.
    expect(await subagents(r, { action: "kill", target: "Report" })).toEqual({
      status: "ok",
      action: "kill",
      killed: 0,
      labels: [],
      text: "Report: already finished, nothing to kill.",
    });
    expect(await completionsIn(r)).toHaveLength(3);
  });

  it('kills every running child with target "all" (and "*"), leaving finished ones alone', async () => {
    const r = await requester("spawner", "ctl-all");
    const one = await runningChild(r, "one");
    const two = await runningChild(r, "two");
    const done = await spawnOk(r, { task: "quick", agentId: "worker", label: "done" });
    await completionsAfter(r, [r, done.child]);
    const killed = await subagents(r, { action: "kill", target: "all" });
    expect(killed).toMatchObject({ status: "ok", action: "kill", killed: 2 });
    expect([...killed.labels].sort()).toEqual(["one", "two"]);
    expect(killed.text).toMatch(/^Killed 2: (one, two|two, one)\.$/);
    expect(await statusOf(one.child, one.runId)).toBe("killed");
    expect(await statusOf(two.child, two.runId)).toBe("killed");
    expect(await statusOf(done.child, done.runId)).toBe("ok");
    await completionsAfter(r, [r, one.child, two.child], 3);

    const three = await runningChild(r, "three");
    expect(await subagents(r, { action: "kill", target: "*" })).toMatchObject({
      killed: 1,
      labels: ["three"],
    });
    expect(await subagents(r, { action: "kill", target: "all" })).toEqual({
      status: "ok",
      action: "kill",
      killed: 0,
      labels: [],
      text: "all: already finished, nothing to kill.",
    });
    await completionsAfter(r, [r, three.child], 4);
  });

  it("cascades to descendants: the whole tree stops and only the killed child reports", async () => {
    const top = await requester("spawner", "ctl-cascade");
    const middle = await runningChild(top, "middle");
    // The middle child spawns a grandchild of its own (hook-async as an orchestrator: maxSpawnDepth 2).
    const config = workerConfigWith((document) => {
      agentIn(document, "hook-async").subagents = { maxSpawnDepth: 2 };
    });
    const spawned = await toolWithConfig(config, "sessions_spawn", middle.child, {
      task: "deep job",
      label: "deep",
    });
    expect(spawned.status).toBe("accepted");
    const grandchild: string = spawned.childSessionKey;
    await waitDeferred(grandchild, spawned.runId);

    expect(await subagents(top, { action: "kill", target: "middle" })).toEqual({
      status: "ok",
      action: "kill",
      killed: 1,
      labels: ["middle"],
      text: "Killed 1: middle.",
    });
    expect(await statusOf(middle.child, middle.runId)).toBe("killed");
    expect(await statusOf(grandchild, spawned.runId)).toBe("killed");

    const [completion, ...more] = await completionsAfter(top, [top, middle.child, grandchild]);
    expect(more).toEqual([]);
    expect(textOf(completion)).toBe(
      await expectedCompletion(middle.child, middle.runId, "middle", "failed: run killed", "(no output)"),
    );
    // The killed middle is not woken up by its killed grandchild: it has no run after the kill.
    expect((await storedRuns(middle.child)).map((run) => run.status)).toEqual(["killed"]);
    expect(await completionsIn(middle.child)).toEqual([]);
    expect((await subagents(top, {})).active).toEqual([]);
  });
});
