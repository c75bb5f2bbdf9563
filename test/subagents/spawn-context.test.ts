import { describe, expect, it } from "vitest";
import {
  ADMIN,
  answerDeferred,
  call,
  driveUntil,
  sessionPath,
  storedRuns,
  toolWithConfig,
  transcript,
  uid,
  workerConfigWith,
} from "../support";
import {
  completionsAfter,
  indexedChildren,
  requester,
  sessionStatus,
  settleAll,
  spawn,
  spawnOk,
} from "../support/subagents";

describe("sessions_spawn context and idempotency", () => {
  it('context: "fork" copies the requester transcript into the child before its run', async () => {
    const r = await requester("main", "fork");
    const now = Date.now();
    const history = [
      { id: `h1-${uid()}`, role: "user", content: "the plan is X", timestamp: now - 2000 },
      { id: `h2-${uid()}`, role: "assistant", content: "noted: X", timestamp: now - 1000 },
    ];
    const imported = await call("POST", sessionPath(r, "/transcript"), {
      token: ADMIN,
      body: { messages: history },
    });
    expect(imported.status, imported.text).toBe(200);
    const { child, runId, result } = await spawnOk(r, { task: "carry on with the plan", context: "fork" });
    expect(result).toMatchObject({ context: "fork" });
    await settleAll([child, r]);
    const copied = await transcript(child);
    expect(copied.slice(0, 2)).toEqual(history);
    expect(copied[2]).toMatchObject({ role: "user", runId, provenance: { kind: "subagent_task" } });
    expect(copied[2]?.content).toBe("[Subagent Task]: carry on with the plan");
    expect(copied[3]).toMatchObject({ role: "assistant", runId });
    expect(copied).toHaveLength(4);

    // Isolated (the default) starts with the task alone.
    const isolated = await spawnOk(r, { task: "fresh start" });
    await settleAll([isolated.child, r]);
    const own = await transcript(isolated.child);
    expect(own.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(own[0]?.runId).toBe(isolated.runId);
  });

  it("a repeated idempotencyKey returns the same child and runId and spawns nothing new", async () => {
    const r = await requester("main", "idem");
    const args = {
      task: "only once",
      agentId: "research",
      idempotencyKey: `spawn-${uid()}`,
      attachments: [{ name: "a.txt", content: "abc" }],
    };
    const first = await spawn(r, args);
    expect(first.status).toBe("accepted");
    const second = await spawn(r, args);
    expect(second).toEqual(first);
    await settleAll([first.childSessionKey, r]);
    const third = await spawn(r, args);
    expect(third).toEqual(first);
    expect((await indexedChildren(r)).map((row) => row.session_key)).toEqual([first.childSessionKey]);
    expect((await storedRuns(first.childSessionKey)).map((run) => run.runId)).toEqual([first.runId]);
    await settleAll([first.childSessionKey, r]);
    expect(await completionsAfter(r, [r])).toHaveLength(1);

    // The key is the requester's: another requester with the same key gets its own child.
    const other = await requester("main", "idem-other");
    const theirs = await spawn(other, args);
    expect(theirs.childSessionKey).not.toBe(first.childSessionKey);
    expect(theirs.runId).not.toBe(first.runId);
    await settleAll([theirs.childSessionKey, other]);
  });
});

describe("sessions_spawn idempotency across the child's lifetime", () => {
  it("a repeat after the child was deleted (cleanup: delete) spawns nothing again", async () => {
    const r = await requester("main", "idem-deleted");
    const args = {
      task: "once and gone",
      agentId: "research",
      cleanup: "delete",
      idempotencyKey: `gone-${uid()}`,
    };
    const first = await spawn(r, args);
    await driveUntil(
      [r, first.childSessionKey],
      async () => ((await sessionStatus(first.childSessionKey)) === 404 ? true : undefined),
      "the child's removal",
    );
    await settleAll([r]);
    expect(await spawn(r, args)).toEqual(first);
    expect(await sessionStatus(first.childSessionKey)).toBe(404);
    expect(await indexedChildren(r)).toEqual([]);
    expect(await completionsAfter(r, [r])).toHaveLength(1);
  });

  it("a repeat is answered as the first time even when the first spawn took the last child slot", async () => {
    const r = await requester("spawner", "idem-cap");
    const config = workerConfigWith((document) => {
      document.agents.defaults.subagents.maxChildrenPerAgent = 1;
    });
    const args = { task: "hold the slot", agentId: "hook-async", idempotencyKey: `cap-${uid()}` };
    const first = await toolWithConfig(config, "sessions_spawn", r, args);
    expect(first.status).toBe("accepted");
    expect(await toolWithConfig(config, "sessions_spawn", r, args)).toEqual(first);
    // A different spawn is refused: the slot is taken.
    expect(
      await toolWithConfig(config, "sessions_spawn", r, { ...args, idempotencyKey: `other-${uid()}` }),
    ).toMatchObject({ status: "forbidden" });
    expect((await storedRuns(first.childSessionKey)).map((run) => run.runId)).toEqual([first.runId]);
    await answerDeferred(first.childSessionKey, "released", [first.childSessionKey, r]);
    await completionsAfter(r, [r, first.childSessionKey]);
  });
});
