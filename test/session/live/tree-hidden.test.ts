import { describe, expect, it } from "vitest";
import {
  AGENT_TOKENS,
  createSession,
  createSpawned,
  drive,
  openStream,
  type StreamEvent,
  sessionPath,
  uid,
} from "../../support";
import { spawnOk } from "../../support/subagents";

const sessionsOf = (events: StreamEvent[]) => new Set(events.map((event) => event.data.sessionKey));

describe("a tree stream says how many of its sessions the reader may not read (issue 35)", () => {
  it("counts the sessions it sees spawned by sessions it reads, first, and again when one is spawned", async () => {
    const u = uid();
    const root = `agent:main:th-${u}`;
    const own = `agent:main:subagent:th-a-${u}`; // readable
    const theirs = `agent:research:subagent:th-b-${u}`; // another agent's, spawned by the root: counted
    const deeper = `agent:research:subagent:th-g-${u}`; // spawned by a session it cannot read: not counted
    const below = `agent:ops:subagent:th-h-${u}`; // another agent's, spawned by a session it reads: counted
    await createSession({ agentId: "main", key: root });
    await createSpawned({ sessionKey: own, agentId: "main", spawnedBy: root, spawnDepth: 1 });
    await createSpawned({ sessionKey: theirs, agentId: "research", spawnedBy: root, spawnDepth: 1 });
    await createSpawned({ sessionKey: deeper, agentId: "research", spawnedBy: theirs, spawnDepth: 2 });
    await createSpawned({ sessionKey: below, agentId: "ops", spawnedBy: own, spawnDepth: 2 });
    await drive([root, own, theirs, deeper, below]);

    const tree = await openStream(sessionPath(root, "/events?tree=1&after=0"), { token: AGENT_TOKENS.main });
    // Before any session's events: how many are left out, and no id (nothing to resume from).
    expect(await tree.next()).toEqual({ event: "hidden", data: { sessions: 2 } });
    const replayed = await tree.until((event) => sessionsOf([event]).has(own));
    expect(sessionsOf(replayed).has(theirs)).toBe(false);

    // A sub-agent of another agent spawned now: its spawn is in the root's log, so the count grows.
    const { child } = await spawnOk(root, { task: "look deeper", agentId: "research" });
    const after = await tree.until((event) => event.event === "hidden");
    // (Its id is the last one the reader had: a frame without one leaves the place to resume from as it was.)
    expect(after.at(-1)).toMatchObject({ event: "hidden", data: { sessions: 3 } });
    expect(after.some((event) => event.event === "child_spawned" && event.data.sessionKey === root)).toBe(
      true,
    );
    await tree.close();
    await drive([root, child]);

    // The operator reads every session: nothing is hidden, no such frame.
    const all = await openStream(sessionPath(root, "/events?tree=1"));
    expect(await all.next()).toMatchObject({ event: "ready", data: { sessions: 6 } });
    await all.close();
  });
});
