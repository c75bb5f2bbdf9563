import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createSession, session, stub, tool, uid } from "../../support";

/** The parent's `child` rows and its child_spawned events, read from its own storage. */
const parentSide = (key: string) =>
  runInDurableObject(stub(key), (_instance, state) => ({
    children: state.storage.sql
      .exec<{ session_key: string; run_id: string | null }>(
        "SELECT session_key, run_id FROM child ORDER BY session_key",
      )
      .toArray()
      .map((row) => ({ ...row })),
    spawned: state.storage.sql
      .exec<{ run_id: string }>("SELECT run_id FROM event WHERE kind = 'child_spawned' ORDER BY seq")
      .toArray()
      .map((row) => row.run_id),
  }));

// One record per fact (issue 29, item 2): a child is one row with the run it was spawned with, and its
// child_spawned event is written by the same call, the child's creation telling its parent.
describe("a spawned child is one record with its run", () => {
  it("a spawn leaves one child row with its run, and one child_spawned event, in the requester", async () => {
    const parent = `agent:main:child-row-${uid()}`;
    await createSession({ agentId: "main", key: parent });
    const spawned = await tool("sessions_spawn", parent, { task: "look around", agentId: "research" });
    const { childSessionKey, runId } = spawned as unknown as { childSessionKey: string; runId: string };
    expect(await parentSide(parent)).toEqual({
      children: [{ session_key: childSessionKey, run_id: runId }],
      spawned: [runId],
    });
  });

  it("is news once per spawn: a repeat records nothing, a note without its run keeps the run", async () => {
    const parent = `agent:main:child-note-${uid()}`;
    // The parent answers its session id: the child is bound to it (SPEC §23 "Generations").
    const { sessionId } = await createSession({ agentId: "main", key: parent });
    const child = `agent:research:subagent:${crypto.randomUUID()}`;
    const [first, second] = [crypto.randomUUID(), crypto.randomUUID()];
    expect(await session(parent).childCreated(child, first)).toEqual({
      ok: true,
      value: { recorded: true, sessionId },
    });
    expect(await session(parent).childCreated(child, first)).toEqual({
      ok: true,
      value: { recorded: false, sessionId },
    });
    expect(await session(parent).childCreated(child)).toEqual({
      ok: true,
      value: { recorded: false, sessionId },
    });
    // Spawned again under the same key (a re-created child): a new run, a new event.
    expect(await session(parent).childCreated(child, second)).toEqual({
      ok: true,
      value: { recorded: true, sessionId },
    });
    expect(await parentSide(parent)).toEqual({
      children: [{ session_key: child, run_id: second }],
      spawned: [first, second],
    });
  });

  it("a requester never written keeps its child, with no log to show it in", async () => {
    const parent = `agent:main:never-${uid()}`;
    const child = `agent:research:subagent:${crypto.randomUUID()}`;
    const runId = crypto.randomUUID();
    expect(await session(parent).childCreated(child, runId)).toEqual({ ok: true, value: { recorded: true } });
    expect(await parentSide(parent)).toEqual({
      children: [{ session_key: child, run_id: runId }],
      spawned: [],
    });
  });
  it("a child spawned for an earlier session under the key is not noted in the session there now", async () => {
    const parent = `agent:main:child-gen-${uid()}`;
    const { sessionId } = await createSession({ agentId: "main", key: parent });
    const child = `agent:research:subagent:${crypto.randomUUID()}`;
    // Its creation notice names the parent session it was spawned for (SPEC §23 "Generations").
    expect(await session(parent).childCreated(child, crypto.randomUUID(), "an-earlier-session-id")).toEqual({
      ok: true,
      value: { recorded: false },
    });
    expect(await parentSide(parent)).toEqual({ children: [], spawned: [] });
    const runId = crypto.randomUUID();
    expect(await session(parent).childCreated(child, runId, sessionId)).toEqual({
      ok: true,
      value: { recorded: true, sessionId },
    });
    expect((await parentSide(parent)).children).toEqual([{ session_key: child, run_id: runId }]);
  });
});
