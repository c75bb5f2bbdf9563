import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { claimSubagentSlot } from "../../src/index-db/lookup";
import { sessionIndexUpsert } from "../../src/index-db/write";
import type { IndexRow } from "../../src/session/api";
import {
  answerDeferred,
  driveUntil,
  runAlarms,
  sendMessage,
  storedRuns,
  stub,
  transcript,
  uid,
} from "../support";
import { rowsInEveryShard, shardOf, shards } from "../support/shards";
import {
  completionsAfter,
  indexedChildren,
  requester,
  runOf,
  spawnOk,
  subagents,
} from "../support/subagents";

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

/** The capped sub-agent sessions among `keys` that the index shows running (what the cap counts). */
async function indexedRunning(keys: string[]): Promise<string[]> {
  const results = await rowsInEveryShard<{ session_key: string }>(
    `SELECT session_key FROM session_index WHERE session_key IN (${keys.map(() => "?").join(", ")}) AND status = 'running'`,
    ...keys,
  );
  return results.map((row) => row.session_key);
}

/** The statuses of each session's runs, oldest first. */
const runStatuses = async (keys: string[]) =>
  Promise.all(keys.map(async (key) => (await storedRuns(key)).map((run) => run.status)));

/** Runs a statement on a session's own SQLite (a state the test cannot wait for, set directly). */
const onSession = (key: string, statement: string, ...bindings: unknown[]) =>
  runInDurableObject(stub(key), (_instance, state) => {
    state.storage.sql.exec(statement, ...bindings);
  });

describe("maxConcurrent is exact, and every ending frees the slot", () => {
  it("two children starting at the same instant: only one takes the last slot", async () => {
    const [r1, r2] = await Promise.all([requester("spawner", "race-1"), requester("spawner", "race-2")]);
    // Spawned together, so both objects try to start their runs together; then their alarms run side by
    // side, round after round, each claim racing the other.
    const [a, b] = await Promise.all([
      spawnOk(r1, { task: "race a", agentId: "capped" }),
      spawnOk(r2, { task: "race b", agentId: "capped" }),
    ]);
    const keys = [a.child, b.child];
    const started = () =>
      driveUntil(
        [],
        async () => {
          await Promise.all(keys.map((key) => runDurableObjectAlarm(stub(key))));
          const statuses = await runStatuses(keys);
          return statuses.some(([status]) => status === "running") ? statuses : undefined;
        },
        "one of the two to start",
      );
    await started();
    for (let round = 0; round < 5; round++)
      await Promise.all(keys.map((key) => runDurableObjectAlarm(stub(key))));
    const statuses = await runStatuses(keys);
    expect(statuses.map(([status]) => status).sort()).toEqual(["queued", "running"]);
    const [winner, loser] = statuses[0]?.[0] === "running" ? [a, b] : [b, a];
    expect(await indexedRunning(keys)).toEqual([winner.child]);

    await answerDeferred(winner.child, "won", [winner.child, loser.child]);
    await answerDeferred(loser.child, "next", [loser.child]);
    await completionsAfter(r1, [r1, a.child], 1);
    await completionsAfter(r2, [r2, b.child], 1);
  });

  it("claims at the same instant take exactly the free slots; a newer index write refuses one, an older cannot undo one", async () => {
    // Index rows of sub-agent sessions of an agent of their own (its cap: 2), as their objects write them.
    const agentId = `race-${uid()}`;
    const row = (name: string, version: number, status: string | null): IndexRow => ({
      session_key: `agent:${agentId}:subagent:${name}`,
      session_id: crypto.randomUUID(),
      agent_id: agentId,
      kind: "other",
      channel: "internal",
      created_at: 1,
      updated_at: 1,
      spawn_depth: 1,
      search_text: name,
      status,
      version,
    });
    const names = ["a", "b", "c", "d"];
    const db = shardOf(`agent:${agentId}:main`);
    await db.batch(names.map((name) => sessionIndexUpsert(db, row(name, 5, null))));
    const claim = (name: string, version = 5) =>
      claimSubagentSlot(shards(), { agentId, sessionKey: `agent:${agentId}:subagent:${name}`, version }, 2);
    // Three at once for two slots: two win, whichever they are (each claim counts and marks in one statement).
    const won = await Promise.all(["a", "b", "c"].map((name) => claim(name)));
    expect(won.filter(Boolean)).toHaveLength(2);
    const keys = names.map((name) => `agent:${agentId}:subagent:${name}`);
    expect(await indexedRunning(keys)).toHaveLength(2);
    const [loser] = ["a", "b", "c"].filter((_name, index) => !won[index]);
    const [holder] = ["a", "b", "c"].filter((_name, index) => won[index]);
    if (!loser || !holder) throw new Error("unreachable");
    // A write of the holder's version (or older), delivered after its claim, does not free the slot.
    await sessionIndexUpsert(db, row(holder, 5, null)).run();
    expect(await claim(loser)).toBe(false);
    // Its next version (the run ended) does.
    await sessionIndexUpsert(db, row(holder, 6, "killed")).run();
    // A claim made from an older record than the index has (the run was killed meanwhile) is refused.
    await sessionIndexUpsert(db, row("d", 7, "killed")).run();
    expect(await claim("d", 6)).toBe(false);
    expect(await claim(loser)).toBe(true);
    expect(await claim("d", 7)).toBe(false);
  });

  it("a slot freed by a kill, a timeout or a failure lets the next waiting child start", async () => {
    const r = await requester("spawner", "cap-free");
    const spawnCapped = (label: string) => spawnOk(r, { task: `${label} job`, agentId: "capped", label });
    /** `waiting` is still queued behind the slot's holder, however often its alarm runs. */
    const expectWaiting = async (waiting: { child: string }) => {
      await runAlarms([waiting.child], 3);
      expect(await runStatuses([waiting.child])).toEqual([["queued"]]);
    };
    const inFlight = (child: { child: string; runId: string }) =>
      driveUntil(
        [child.child],
        async () =>
          (await storedRuns(child.child)).find((run) => run.runId === child.runId && run.deferred === 1),
        `${child.child} to start`,
      );

    const killed = await spawnCapped("killed");
    await inFlight(killed);
    const timedOut = await spawnCapped("timed-out");
    await expectWaiting(timedOut);
    expect(await subagents(r, { action: "kill", target: "killed" })).toMatchObject({
      status: "ok",
      killed: 1,
    });
    await inFlight(timedOut);

    const failed = await spawnCapped("failed");
    await expectWaiting(failed);
    // Its deadline passes (set in the past, not waited for): its alarm ends it.
    await onSession(timedOut.child, "UPDATE run SET deadline_at = 1 WHERE run_id = ?", timedOut.runId);
    await runAlarms([timedOut.child]);
    await inFlight(failed);

    const last = await spawnCapped("last");
    await expectWaiting(last);
    // An instance evicted three times with the run in flight: the run is given up as failed.
    await onSession(failed.child, "UPDATE run SET deferred = 0, attempts = 3 WHERE run_id = ?", failed.runId);
    await runAlarms([failed.child]);
    await inFlight(last);
    await answerDeferred(last.child, "last done", [last.child]);

    expect((await runOf(killed.child, killed.runId)).status).toBe("killed");
    expect((await runOf(timedOut.child, timedOut.runId)).status).toBe("timeout");
    expect((await runOf(failed.child, failed.runId)).status).toBe("error");
    expect((await runOf(last.child, last.runId)).status).toBe("ok");
    expect((await indexedChildren(r)).map((row) => [row.label, row.status])).toEqual([
      ["killed", "killed"],
      ["timed-out", "timeout"],
      ["failed", "failed"],
      ["last", "done"],
    ]);
    await completionsAfter(r, [r, killed.child, timedOut.child, failed.child, last.child], 4);
  });
});
