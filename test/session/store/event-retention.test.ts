import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { MAX_EVENTS } from "../../../src/session/store/event-log";
import { PRUNE_BATCH, pruneSessionTables } from "../../../src/session/store/retention";
import {
  createSession,
  openStream,
  sendMessage,
  session,
  sessionPath,
  stub,
  tool,
  uid,
  waitRun,
} from "../../support";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.UTC(2026, 10, 1);

const count = (sql: SqlStorage, query: string) => sql.exec<{ n: number }>(query).one().n;

/** The session's kept events after `since`, straight from its object (session_status's changesSince). */
async function changes(key: string, since = 0) {
  const answer = await session(key).changes(since);
  if (!answer.ok) throw new Error(answer.message);
  return answer.value;
}

describe("the event log goes with the runs after runRetention (SPEC §23), inside §13's own bounds", () => {
  it("cuts the events older than runRetention as a prefix, a batch at a time, oldest first", async () => {
    const key = `agent:main:event-retention-${uid()}`;
    await createSession({ agentId: "main", key });
    await runInDurableObject(stub(key), (_instance, state) => {
      const { sql } = state.storage;
      sql.exec("DELETE FROM event");
      const insert = (seq: number, at: number) =>
        sql.exec(
          "INSERT INTO event (seq, kind, actor_type, occurred_at, summary) VALUES (?, 'patched', 'system', ?, 'x')",
          seq,
          at,
        );
      for (let seq = 1; seq <= PRUNE_BATCH + 20; seq += 1) insert(seq, NOW - 2 * DAY + seq);
      // A clock that stepped back: an event newer than its neighbours inside the old part goes with them.
      sql.exec("UPDATE event SET occurred_at = ? WHERE seq = 50", NOW);
      for (let seq = PRUNE_BATCH + 21; seq <= PRUNE_BATCH + 30; seq += 1) insert(seq, NOW - HOUR + seq);

      expect(pruneSessionTables(sql, DAY, NOW).events).toBe(PRUNE_BATCH + 1);
      expect(count(sql, "SELECT MIN(seq) AS n FROM event")).toBe(PRUNE_BATCH + 2);
      expect(pruneSessionTables(sql, DAY, NOW).events).toBe(19);
      expect(pruneSessionTables(sql, DAY, NOW).events).toBe(0);
      // What is left is dense from its oldest: the newest, inside runRetention.
      expect(count(sql, "SELECT MIN(seq) AS n FROM event")).toBe(PRUNE_BATCH + 21);
      expect(count(sql, "SELECT COUNT(*) AS n FROM event")).toBe(10);
    });
    // The 10,000 bound (§13) stays the outer one, whatever runRetention says.
    expect(MAX_EVENTS).toBe(10_000);
  });

  it("a cursor older than the log then gets §13's gap: changesSince, session_status and a stream", async () => {
    const key = `agent:retained:gap-${uid()}`;
    await createSession({ agentId: "retained", key });
    const first = await sendMessage(key, "the first question");
    expect((await waitRun(first)).status).toBe("ok");
    const cursor = (await changes(key)).stateVersion;
    const second = await sendMessage(key, "the second question");
    expect((await waitRun(second)).status).toBe("ok");
    // The first run ended two hours ago (the agent keeps runs an hour), its events with it: no sleeping.
    await runInDurableObject(stub(key), (_instance, state) => {
      const { sql } = state.storage;
      sql.exec("UPDATE run SET ended_at = ended_at - 2 * ? WHERE run_id = ?", HOUR, first);
      sql.exec("UPDATE event SET occurred_at = occurred_at - 2 * ? WHERE seq <= ?", HOUR, cursor);
    });
    // The next run's start makes the object's retention pass.
    const third = await sendMessage(key, "the third question");
    expect((await waitRun(third)).status).toBe("ok");

    const answer = await changes(key, 1);
    expect(answer).toMatchObject({ historyGap: true, earliestAvailableSequence: cursor + 1 });
    expect(answer.events[0]?.seq).toBe(cursor + 1);
    expect((await changes(key, cursor)).historyGap).toBe(false);
    expect((await session(key).getRun(first)).ok).toBe(false);
    expect((await session(key).getRun(second)).ok).toBe(true);

    // A watcher resuming from its old cursor: session_status says the gap.
    const status = await tool("session_status", key, { changesSince: 1 });
    expect(status).toMatchObject({
      stateChanges: { historyGap: true, earliestAvailableSequence: cursor + 1 },
    });

    const stream = await openStream(sessionPath(key, "/events?after=1"));
    expect(await stream.next()).toEqual({
      event: "gap",
      data: { after: 1, earliestAvailableSequence: cursor + 1 },
    });
    expect(await stream.next()).toMatchObject({ id: String(cursor + 1) });
    await stream.close();
  });
});
