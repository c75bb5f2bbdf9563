import { describe, expect, it } from "vitest";
import {
  ADMIN,
  agentIn,
  answerDeferred,
  call,
  driveUntil,
  expectOnlyPosts,
  sessionPath,
  storedRuns,
  toolWithConfig,
  transcript,
  workerConfigWith,
} from "../support";
import {
  completionsAfter,
  completionsIn,
  expectedCompletion,
  indexedChildren,
  requester,
  spawnOk,
  taskMessage,
  textOf,
} from "../support/subagents";

describe("depth-2 orchestration (boss and worker, maxSpawnDepth 2)", () => {
  it("the worker's completion stays inside the boss child; the boss child's one completion reaches the top", async () => {
    const top = await requester("spawner", "orch", true);
    const { child: boss, runId: bossRun } = await spawnOk(top, {
      task: "delegate the quarterly report",
      agentId: "boss",
      label: "orchestrator",
    });
    // The boss child's run spawns the worker (its tool result names it).
    const worker = await driveUntil(
      [top, boss],
      async () => (await indexedChildren(boss))[0]?.session_key as string | undefined,
      "the worker",
    );
    expect(worker).toMatch(/^agent:worker:subagent:/);
    const bossTask = String((await transcript(boss))[0]?.content);
    expect(bossTask).toBe(taskMessage("delegate the quarterly report"));
    const [workerRow] = await indexedChildren(boss);
    expect(workerRow).toMatchObject({ spawn_depth: 2, spawned_by: boss, label: "work" });

    const completions = await completionsAfter(top, [top, boss, worker]);
    // The worker's completion went to the boss child, as an internal message...
    const bossCompletions = await completionsIn(boss);
    expect(bossCompletions).toHaveLength(1);
    const workerRuns = await storedRuns(worker);
    expect(workerRuns).toHaveLength(1);
    const workerRunId = String(workerRuns[0]?.runId);
    const workerTask = String((await transcript(worker))[0]?.content);
    expect(workerTask.startsWith("[Subagent Task]: ")).toBe(true);
    expect(textOf(bossCompletions[0])).toBe(
      await expectedCompletion(worker, workerRunId, "work", "completed successfully", "worker result"),
    );
    // ...which the boss child turned into its own update, posted nowhere.
    const bossRuns = await storedRuns(boss);
    expect(bossRuns.map((run) => [run.status, run.reply])).toEqual([
      ["ok", "delegated"],
      ["ok", "Boss update: the worker finished."],
    ]);
    await expectOnlyPosts(boss, []);

    // The boss's first run ended with its worker still working: it waited (as after sessions_yield), and
    // the run the worker's completion started reported the task. The top-level session got that one
    // completion, never the worker's.
    expect(bossRuns[0]?.runId).toBe(bossRun);
    expect(completions.map((message) => message.provenance?.sourceSessionKey)).toEqual([boss]);
    expect(textOf(completions[0])).toBe(
      await expectedCompletion(
        boss,
        String(bossRuns[1]?.runId),
        "orchestrator",
        "completed successfully",
        "Boss update: the worker finished.",
      ),
    );
    // The top-level session posts its updates to its channel.
    const updates = completions.map((message) => `Update: ${textOf(message)}`);
    await expectOnlyPosts(top, updates);
  });

  it("a requester that is gone passes the completion to its own requester", async () => {
    const top = await requester("spawner", "orch-gone");
    const { child: middle } = await spawnOk(top, { task: "stand by", agentId: "boss", label: "middle" });
    await completionsAfter(top, [top, middle]);
    // The middle (depth 1 of 2) spawns a grandchild that waits for its result (hook-async).
    const config = workerConfigWith((document) => {
      const boss = agentIn(document, "boss");
      boss.subagents = { ...boss.subagents, allowAgents: ["hook-async"] };
    });
    const spawned = await toolWithConfig(config, "sessions_spawn", middle, {
      task: "long errand",
      agentId: "hook-async",
      label: "grandchild",
    });
    expect(spawned.status).toBe("accepted");
    const grandchild: string = spawned.childSessionKey;
    // The middle session is deleted while the grandchild works.
    expect((await call("DELETE", sessionPath(middle), { token: ADMIN })).status).toBe(200);
    await answerDeferred(grandchild, "errand done", [grandchild, top]);

    const completions = await completionsAfter(top, [top, grandchild], 2);
    expect(completions.map((message) => message.provenance?.sourceSessionKey)).toEqual([middle, grandchild]);
    expect(textOf(completions[1])).toBe(
      await expectedCompletion(
        grandchild,
        spawned.runId,
        "grandchild",
        "completed successfully",
        "errand done",
      ),
    );
  });
});
