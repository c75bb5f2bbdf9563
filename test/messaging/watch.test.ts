import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  createSession,
  createSpawned,
  describeSession,
  drive,
  importMessages,
  msg,
  runAlarms,
  type StoredMessage,
  send,
  sendMessage,
  session,
  storedRuns,
  stub,
  tool,
  transcript,
  uid,
  waitRun,
} from "../support";

/** SPEC §13: the notice, byte for byte. */
const noticeText = (target: string, n: number) =>
  `Session "${target}" changed (other actor). Reconcile before acting: session_status sessionKey "${target}" changesSince ${n}.`;

/** The notice as the watcher's transcript stores it: a hidden system message, once per (target, n). */
const notice = (target: string, n: number) => ({
  id: `watch:${target}:${n}`,
  role: "system",
  content: noticeText(target, n),
  hidden: true,
  provenance: { kind: "system" },
  timestamp: expect.any(Number),
});

async function notices(watcher: string): Promise<StoredMessage[]> {
  return (await transcript(watcher)).filter((message) => message.id.startsWith("watch:"));
}

type Cursor = { last_seen: number; notified: number | null; material: number };

/** The watcher's cursor as the watched session stores it; undefined when it does not watch. */
function cursor(target: string, watcher: string): Promise<Cursor | undefined> {
  return runInDurableObject(stub(target), (_instance, state) => {
    if (state.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'watcher'").toArray().length === 0)
      return undefined;
    const rows = state.storage.sql
      .exec<Cursor>("SELECT last_seen, notified, material FROM watcher WHERE watcher_key = ?", watcher)
      .toArray();
    return rows[0] ? { ...rows[0] } : undefined;
  });
}

/** Rows of the session's storage; none where its object holds no schema (deleted: SPEC §23). */
function sql<Row extends Record<string, SqlStorageValue>>(key: string, query: string): Promise<Row[]> {
  return runInDurableObject(stub(key), (_instance, state) =>
    state.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'session'").toArray().length === 0
      ? []
      : state.storage.sql
          .exec<Row>(query)
          .toArray()
          .map((row) => ({ ...row })),
  );
}

/** The seqs of the session's `message` events written by a person. */
async function humanSeqs(key: string): Promise<number[]> {
  const rows = await sql<{ seq: number }>(
    key,
    "SELECT seq FROM event WHERE kind = 'message' AND actor_type = 'human' ORDER BY seq",
  );
  return rows.map((row) => row.seq);
}

describe("watch (SPEC §13)", () => {
  it("coalesces a person's messages into one notice until acknowledged; a main watcher is woken once", async () => {
    const u = uid();
    const watcher = `agent:relay:watch-w-${u}`;
    const nested = `agent:relay:subagent:${crypto.randomUUID()}`;
    const target = `agent:relay:watch-t-${u}`;
    await createSession({ agentId: "relay", key: watcher });
    await createSpawned({ sessionKey: target, agentId: "relay", spawnedBy: watcher });
    await createSpawned({ sessionKey: nested, agentId: "relay", spawnedBy: watcher });
    for (const key of [watcher, nested])
      expect(await session(target).watch(key)).toEqual({ ok: true, value: { watched: true } });
    const v0 = (await describeSession(target)).stateVersion ?? 0;

    for (const text of ["one", "two", "three"]) await sendMessage(target, text);
    expect(await notices(watcher)).toEqual([notice(target, v0)]);
    expect(await notices(nested)).toEqual([notice(target, v0)]);
    const [h1, , h3] = await humanSeqs(target);
    expect(await cursor(target, watcher)).toEqual({ last_seen: v0, notified: h1, material: h3 });
    // Each notice is a handoff of the target's ledger (SPEC §16 `notice`), delivered once taken.
    expect(await sql(target, "SELECT kind, target, status, attempts FROM delivery ORDER BY target")).toEqual([
      { kind: "notice", target: nested, status: "delivered", attempts: 1 },
      { kind: "notice", target: watcher, status: "delivered", attempts: 1 },
    ]);

    // The main watcher's wake is due 20 s after its first notice; a sub-agent watcher gets none.
    const [{ timestamp }] = (await notices(watcher)) as [StoredMessage];
    expect(await sql(watcher, "SELECT due_at FROM watch_wake")).toEqual([{ due_at: timestamp + 20_000 }]);
    expect(await sql(nested, "SELECT due_at FROM watch_wake")).toEqual([]);
    const alarm = await runInDurableObject(stub(watcher), (_instance, state) => state.storage.getAlarm());
    expect(alarm).not.toBeNull();
    expect(alarm).toBeLessThanOrEqual(timestamp + 20_000);
    // Before the window closes the alarm queues nothing; once it has, exactly one wake turn.
    await runAlarms([watcher]);
    expect(await storedRuns(watcher)).toEqual([]);
    await runInDurableObject(stub(watcher), (_instance, state) => {
      state.storage.sql.exec("UPDATE watch_wake SET due_at = due_at - 20000");
    });
    await runAlarms([watcher], 3);
    const wakes = await storedRuns(watcher);
    expect(wakes.map((run) => run.triggerMessageId)).toEqual([`watch-wake:${wakes[0]?.runId}`]);
    await waitRun(wakes[0]?.runId);
    const trigger = (await transcript(watcher)).find((message) => message.id === wakes[0]?.triggerMessageId);
    expect(trigger).toMatchObject({
      role: "user",
      content: "Sessions you watch changed (see the session-state notices above). Reconcile before acting.",
      provenance: { kind: "system" },
    });
    expect(await sql(watcher, "SELECT due_at FROM watch_wake")).toEqual([]);

    // While the notice is pending, more changes only move its high-water mark.
    await sendMessage(target, "four");
    expect(await notices(watcher)).toHaveLength(1);
    const h4 = (await humanSeqs(target))[3];
    expect(await cursor(target, watcher)).toEqual({ last_seen: v0, notified: h1, material: h4 });

    // Reading the changes since the notice's n acknowledges what the answer showed.
    const status = await tool("session_status", watcher, { sessionKey: target, changesSince: v0 });
    const v1 = status.stateVersion;
    expect(v1).toBeGreaterThanOrEqual(h4 ?? Number.NaN);
    expect(await cursor(target, watcher)).toEqual({ last_seen: v1, notified: null, material: h4 });
    // The sub-agent watcher did not read: its notice stays pending, and it gets no second one.
    expect(await cursor(target, nested)).toMatchObject({ last_seen: v0, notified: h1 });

    await sendMessage(target, "five");
    expect(await notices(watcher)).toEqual([notice(target, v0), notice(target, v1)]);
    expect(await notices(nested)).toHaveLength(1);
  });

  it("an answer cut at 200 events acknowledges what it showed and owes exactly one fresh notice", async () => {
    const u = uid();
    const watcher = `agent:relay:watch-cut-${u}`;
    const target = `agent:relay:watch-cut-t-${u}`;
    await createSession({ agentId: "relay", key: watcher });
    await createSpawned({ sessionKey: target, agentId: "relay", spawnedBy: watcher });
    await session(target).watch(watcher);
    const v0 = (await describeSession(target)).stateVersion ?? 0;
    const person = { provenance: { kind: "external_user" } };
    const lines = Array.from({ length: 250 }, (_, i) =>
      msg(`p${i}`, "user", `line ${i}`, 1_763_700_000_000 + i, person),
    );
    await importMessages(target, lines);
    expect(await notices(watcher)).toEqual([notice(target, v0)]);

    // The client's status card type does not carry stateChanges (yet): read as the wire has it.
    const cut = (await tool("session_status", watcher, { sessionKey: target, changesSince: v0 })) as {
      stateChanges?: { truncated: boolean; events: { seq: number }[] };
    };
    expect(cut.stateChanges).toMatchObject({ truncated: true });
    const shown = v0 + 200;
    expect(cut.stateChanges?.events.at(-1)?.seq).toBe(shown);
    expect(await notices(watcher)).toEqual([notice(target, v0), notice(target, shown)]);
    expect(await cursor(target, watcher)).toEqual({
      last_seen: shown,
      notified: v0 + 250,
      material: v0 + 250,
    });

    // Reading the rest settles it: nothing more is owed.
    await tool("session_status", watcher, { sessionKey: target, changesSince: shown });
    expect(await cursor(target, watcher)).toEqual({
      last_seen: v0 + 250,
      notified: null,
      material: v0 + 250,
    });
    expect(await notices(watcher)).toHaveLength(2);
  });

  it("sessions_send: watched only when asked, false for oneself; the watcher's own sends and the replies raise nothing", async () => {
    const u = uid();
    const watcher = `agent:relay:watch-s-${u}`;
    const target = `agent:relay:watch-st-${u}`;
    await createSession({ agentId: "relay", key: watcher });
    await createSpawned({ sessionKey: target, agentId: "relay", spawnedBy: watcher });

    const plain = await send(watcher, { sessionKey: target, message: "plain", timeoutSeconds: 30 });
    expect(plain).toMatchObject({ status: "ok", reply: "relay got: plain" });
    expect(plain).not.toHaveProperty("watched");
    expect(await cursor(target, watcher)).toBeUndefined();
    const self = await send(watcher, {
      sessionKey: watcher,
      message: "to me",
      timeoutSeconds: 0,
      watch: true,
    });
    expect(self).toMatchObject({ status: "accepted", watched: false });
    const off = await send(watcher, { sessionKey: target, message: "off", timeoutSeconds: 30, watch: false });
    expect(off).toMatchObject({ status: "ok", watched: false });
    expect(await cursor(target, watcher)).toBeUndefined();

    const on = await send(watcher, { sessionKey: target, message: "watch", timeoutSeconds: 30, watch: true });
    expect(on).toMatchObject({ status: "ok", reply: "relay got: watch", watched: true });
    expect(await cursor(target, watcher)).toMatchObject({ notified: null });
    const again = await send(watcher, { sessionKey: target, message: "more", timeoutSeconds: 30 });
    expect(again).toMatchObject({ status: "ok", reply: "relay got: more" });
    // The reply-back turns and announce steps run out too: every message in the target is the
    // watcher's own or the target's.
    await drive([watcher, target]);
    expect(await notices(watcher)).toEqual([]);
    expect(await cursor(target, watcher)).toMatchObject({ notified: null });
  });

  it("a spawn makes the requester a watcher of its child: a person's message into the child notifies it", async () => {
    const parent = (await createSession({ agentId: "main", key: `agent:main:watch-p-${uid()}` })).key;
    const spawned = await tool("sessions_spawn", parent, { task: "count the widgets" });
    const child = String((spawned as { childSessionKey: string }).childSessionKey);
    // Cursor at the child's version once created with its task (created, the task message, its run
    // queued): a forked transcript or the task itself never notifies the requester.
    expect(await cursor(child, parent)).toEqual({ last_seen: 3, notified: null, material: 3 });
    await sendMessage(child, "a person writes in");
    expect(await notices(parent)).toEqual([notice(child, 3)]);
  });

  it("deleting the target removes its cursors; a deleted watcher stops watching, an archived one takes nothing", async () => {
    const u = uid();
    const keyOf = (name: string) => `agent:relay:watch-${name}-${u}`;
    const [kept, deleted, archived] = [keyOf("kept"), keyOf("deleted"), keyOf("archived")];
    const target = `agent:relay:watch-dt-${u}`;
    for (const key of [kept, deleted, archived]) await createSession({ agentId: "relay", key });
    await createSpawned({ sessionKey: target, agentId: "relay", spawnedBy: kept });
    for (const key of [kept, deleted, archived]) await session(target).watch(key);
    const v0 = (await describeSession(target)).stateVersion ?? 0;
    expect((await session(deleted).remove()).ok).toBe(true);
    expect((await session(archived).patch({ archived: true })).ok).toBe(true);

    await sendMessage(target, "anyone there?");
    expect(await notices(kept)).toEqual([notice(target, v0)]);
    expect(await notices(archived)).toEqual([]);
    expect(await cursor(target, deleted)).toBeUndefined();
    // Archived: no notice pending, so one is raised again once it is back and something changes.
    expect(await cursor(target, archived)).toMatchObject({ last_seen: v0, notified: null });
    expect(await sql(target, "SELECT kind FROM outbox WHERE kind = 'watch_notice'")).toEqual([]);

    expect((await session(target).remove()).ok).toBe(true);
    expect(await sql(target, "SELECT watcher_key FROM watcher")).toEqual([]);
  });
});
