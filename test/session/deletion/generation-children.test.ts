import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  ADMIN,
  answerDeferred,
  call,
  createSession,
  createSpawned,
  describeSession,
  openStream,
  runToken,
  sessionPath,
  stub,
  tool,
} from "../../support";
import {
  completionsAfter,
  completionsIn,
  requester,
  runningChild,
  settleAll,
  spawn,
  spawnOk,
  subagents,
} from "../../support/subagents";

// SPEC §23 "Generations": a key created again after a deletion is a new session. Its children are
// bound to the session id they were made for: an old session's child neither reaches, nor counts for,
// nor is visible to the key's new session.

const remove = async (key: string) =>
  expect((await call("DELETE", sessionPath(key), { token: ADMIN })).status).toBe(200);

/** A requester of `agentId` deleted and created again under the same key: its new session id. */
async function recreate(key: string, agentId: string): Promise<string> {
  const before = (await describeSession(key)).sessionId;
  await remove(key);
  const again = await createSession({ agentId, key });
  expect(again.sessionId).not.toBe(before);
  return again.sessionId;
}

/** The completion records of a child's ledger (its own delivery table). */
const completionRecords = (child: string) =>
  runInDurableObject(stub(child), (_instance, state) =>
    state.storage.sql
      .exec<{ status: string; last_error: string | null }>(
        "SELECT status, last_error FROM delivery WHERE kind = 'completion'",
      )
      .toArray(),
  );

describe("a child of a deleted session, its requester's key created again", () => {
  it("does not reach the new session: its completion is recorded undeliverable (failed), not taken", async () => {
    const parent = await requester("spawner", "gen-done");
    const old = await runningChild(parent, "old-child");
    await recreate(parent, "spawner");

    await answerDeferred(old.child, "the old session's answer", [old.child, parent]);
    await settleAll([old.child, parent]);
    expect(await completionsIn(parent)).toEqual([]);
    expect(await completionRecords(old.child)).toEqual([
      { status: "failed", last_error: expect.stringContaining("no session left to take it") },
    ]);

    // A child of the new session still reports to it.
    const own = await runningChild(parent, "new-child");
    await answerDeferred(own.child, "the new session's answer", [own.child, parent]);
    const [completion] = await completionsAfter(parent, [own.child, parent]);
    expect(completion?.content).toContain("the new session's answer");
  });

  it("is not in the new session's controlled tree: subagents wait finds it unavailable, cancel refuses it", async () => {
    const parent = await requester("spawner", "gen-wait");
    const old = await runningChild(parent, "old-waited");
    expect(await subagents(parent, { action: "wait", runIds: [old.runId], timeoutSeconds: 0 })).toMatchObject(
      {
        reason: "timeout",
      },
    );
    await recreate(parent, "spawner");
    expect(await subagents(parent, { action: "wait", runIds: [old.runId], timeoutSeconds: 0 })).toMatchObject(
      {
        reason: "unavailable",
        unavailable: [old.runId],
      },
    );
    expect(await subagents(parent, { action: "cancel", runId: old.runId })).toEqual({
      status: "forbidden",
      error: "Run outside the controlled session tree.",
    });
    await answerDeferred(old.child, "done", [old.child]);
  });

  it("does not count toward maxChildrenPerAgent of the new session", async () => {
    // swarm-small: maxChildrenPerAgent 1.
    const parent = await requester("swarm-small", "gen-count");
    const old = await runningChild(parent, "old-slot");
    expect(await spawn(parent, { task: "one more", agentId: "hook-async" })).toMatchObject({
      status: "forbidden",
    });
    await recreate(parent, "swarm-small");
    const own = await spawnOk(parent, { task: "the new session's first", agentId: "hook-async" });
    // Its own child counts: the cap holds for the new session.
    expect(await spawn(parent, { task: "a second", agentId: "hook-async" })).toMatchObject({
      status: "forbidden",
    });
    await answerDeferred(old.child, "done", [old.child]);
    await answerDeferred(own.child, "done", [own.child, parent]);
  });

  it("does not keep the new session of an orchestrator from failing sessions_yield with no children", async () => {
    const top = await requester("spawner", "gen-yield-top");
    const orchestrator = `agent:boss-async-rec:subagent:${crypto.randomUUID()}`;
    const init = { sessionKey: orchestrator, agentId: "boss-async-rec", spawnedBy: top, spawnDepth: 1 };
    await createSpawned(init);
    // Its grandchild (its own agent, at depth 2) keeps running: the old session had a child to wait for.
    const old = await spawnOk(orchestrator, { task: "long work", label: "grandchild" });
    await remove(orchestrator);
    await createSpawned(init);
    const sessionId = (await describeSession(orchestrator)).sessionId;

    for (const claims of [{}, { sessionId }]) {
      const token = await runToken({
        sessionKey: orchestrator,
        agentId: "boss-async-rec",
        depth: 1,
        ...claims,
      });
      const yielded = await call<{ result: { details: unknown } }>("POST", "/tools/invoke", {
        token,
        body: { tool: "sessions_yield", args: {} },
      });
      expect(yielded.json.result.details).toEqual({
        status: "error",
        error:
          "You have no running sub-agents to wait for: finish your task with your answer instead of yielding.",
      });
    }
    await answerDeferred(old.child, "done", [old.child]);
  });

  it("is not visible to the new session (visibility tree), nor listed by it", async () => {
    const parent = await requester("main", "gen-see");
    const { child } = await spawnOk(parent, { task: `old task ${crypto.randomUUID()}` });
    await settleAll([child, parent]);
    expect(await tool("sessions_history", parent, { sessionKey: child })).toMatchObject({
      sessionKey: child,
    });
    const newId = await recreate(parent, "main");

    const history = await tool("sessions_history", parent, { sessionKey: child });
    expect(history).toMatchObject({ status: "forbidden" });
    expect(await tool("session_status", parent, { sessionKey: child })).toMatchObject({
      status: "forbidden",
    });
    const listed = (await tool("sessions_list", parent, {})) as unknown as { sessions: { key: string }[] };
    expect(listed.sessions.map((row) => row.key)).not.toContain(child);
    const list = await subagents(parent, { action: "list" });
    expect(JSON.stringify(list)).not.toContain(child);

    // A run of the new session may not follow the old child's events (its run token names its session).
    const token = await runToken({ sessionKey: parent, agentId: "main", sessionId: newId });
    const stream = await openStream(`${sessionPath(child)}/events`, { token });
    expect(stream.status).toBe(403);
    await stream.close();
  });
});
