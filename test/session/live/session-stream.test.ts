import { describe, expect, it } from "vitest";
import {
  ADMIN,
  AGENT_TOKENS,
  call,
  createSession,
  createSpawned,
  drive,
  importMessages,
  msg,
  openStream,
  runToken,
  type StreamEvent,
  sendMessage,
  sessionPath,
  uid,
  waitRun,
} from "../../support";

const SECRET = "sk-live0123456789abcdefXYZ";

/** Events until the run's end, as [id, kind]. */
async function untilRunEnd(stream: Awaited<ReturnType<typeof openStream>>) {
  const events = await stream.until((event) => event.event === "run_completed");
  return events.map((event) => [event.id, event.event]);
}

describe("session event streams (SPEC §14)", () => {
  it("replays from ?after=, streams live, and resumes from Last-Event-ID losing and repeating nothing", async () => {
    const key = `agent:research:sse-${uid()}`;
    await createSession({ agentId: "research", key });
    expect((await waitRun(await sendMessage(key, "first"))).status).toBe("ok");
    const replay = await openStream(sessionPath(key, "/events?after=2"));
    expect(replay.status).toBe(200);
    expect(replay.contentType).toMatch(/^text\/event-stream/);
    const first = await replay.next();
    expect(first).toMatchObject({ id: "3", event: "run_queued", data: { seq: 3, kind: "run_queued" } });
    expect((await replay.next()).id).toBe("4");
    await replay.close();
    // The reader dropped after event 4; its EventSource reconnects with that id.
    const resumed = await openStream(sessionPath(key, "/events"), { headers: { "Last-Event-ID": "4" } });
    expect(await untilRunEnd(resumed)).toEqual([
      ["5", "message"],
      ["6", "run_completed"],
    ]);
    // Then live: a new turn's events arrive as they commit, in order.
    await sendMessage(key, "second");
    expect(await untilRunEnd(resumed)).toEqual([
      ["7", "message"],
      ["8", "run_queued"],
      ["9", "run_started"],
      ["10", "message"],
      ["11", "run_completed"],
    ]);
    await resumed.close();
    // Without a cursor a stream is live only: it says where it starts (an id to resume from, no event
    // of the log), then its first event is the next one written.
    const live = await openStream(sessionPath(key, "/events"));
    expect(await live.next()).toEqual({ event: "ready", id: "11", data: { stateVersion: 11 } });
    await sendMessage(key, "third");
    expect((await live.next()).id).toBe("12");
    await live.close();
  });

  it("carries each message in the safe view of sessions_history; the exact one only for the operator's raw=1", async () => {
    const key = `agent:research:safe-${uid()}`;
    await createSession({ agentId: "research", key });
    const safe = await openStream(sessionPath(key, "/events?after=1"));
    const raw = await openStream(sessionPath(key, "/events?after=1&raw=1"));
    await importMessages(key, [msg("s1", "user", `my key is ${SECRET}`, 1_763_700_000_000)]);
    const shown = (await safe.next()) as StreamEvent<{ kind: string; message: { content: unknown } }>;
    expect(shown.data.kind).toBe("message");
    expect(JSON.stringify(shown.data.message)).not.toContain(SECRET);
    expect((await raw.next()).data).toMatchObject({ message: { id: "s1", content: `my key is ${SECRET}` } });
    await Promise.all([safe.close(), raw.close()]);
    const agentRaw = await openStream(sessionPath(key, "/events?raw=1"), { token: AGENT_TOKENS.research });
    expect(agentRaw.status).toBe(403);
    expect(JSON.stringify(agentRaw.error)).toContain("raw");
  });

  it("is refused to a credential that may not read the session's history", async () => {
    const u = uid();
    const mine = `agent:main:own-${u}`;
    const other = `agent:main:other-${u}`;
    await createSession({ agentId: "main", key: other });
    const token = await runToken({ sessionKey: mine });
    // visibility "tree": a run token reads its own session and what it spawned, not a sibling.
    expect((await openStream(sessionPath(other, "/events"), { token })).status).toBe(403);
    const own = await openStream(sessionPath(mine, "/events?after=0"), { token });
    expect((await own.next()).event).toBe("created");
    await own.close();
    expect((await openStream(sessionPath(other, "/events"), { token: AGENT_TOKENS.research })).status).toBe(
      403,
    );
  });

  it("answers bad cursors and flags with a 400 naming the field, and never opens a stream", async () => {
    const key = `agent:research:bad-${uid()}`;
    await createSession({ agentId: "research", key });
    const cases: [string, Record<string, string>, string][] = [
      ["?after=-1", {}, "after: must be a non-negative integer"],
      ["?after=1.5", {}, "after: must be a non-negative integer"],
      ["?after=abc", {}, "after: must be a non-negative integer"],
      ["?after=9", {}, "after: 9 is beyond the session's stateVersion (1)"],
      ["", { "Last-Event-ID": "7" }, "Last-Event-ID: 7 is beyond the session's stateVersion (1)"],
      ["?tree=yes", {}, "tree: use 1 or 0"],
      ["?tree=1&after=9", {}, "after: 9 is beyond the session's stateVersion (1)"],
      ["?tree=1&after=t.nonsense", {}, "after: not a cursor this stream gave out"],
    ];
    for (const [query, headers, message] of cases) {
      const refused = await openStream(sessionPath(key, `/events${query}`), { headers });
      expect([
        query,
        refused.status,
        (refused.error as { error: { message: string } }).error.message,
      ]).toEqual([query, 400, message]);
    }
  });

  it("feeds a reader that comes back far behind from the log at its own pace, to the head", async () => {
    const key = `agent:research:far-${uid()}`;
    await createSession({ agentId: "research", key });
    await importMessages(
      key,
      Array.from({ length: 2_100 }, (_, index) =>
        msg(`f${index}`, "user", `line ${index}`, 1_763_700_000_000 + index),
      ),
    );
    const stream = await openStream(sessionPath(key, "/events?after=0"));
    const events = await stream.until((event) => event.id === "2101", 30_000);
    expect(events.map((event) => Number(event.id))).toEqual(
      Array.from({ length: 2_101 }, (_, index) => index + 1),
    );
    await stream.close();
  });

  it("ends its streams when the session is deleted", async () => {
    const key = `agent:research:del-${uid()}`;
    await createSession({ agentId: "research", key });
    const stream = await openStream(sessionPath(key, "/events"));
    expect((await stream.next()).event).toBe("ready");
    expect((await call("DELETE", sessionPath(key), { token: ADMIN })).status).toBe(200);
    expect(await stream.ended()).toBe(true);
  });

  it("with tree=1 merges the sub-agent tree, grandchildren included, and resumes the whole tree from one id", async () => {
    const u = uid();
    const root = `agent:boss:tr-${u}`;
    const child = `agent:boss:subagent:tr-c-${u}`;
    const grandchild = `agent:worker:subagent:tr-g-${u}`;
    await createSession({ agentId: "boss", key: root });
    await createSpawned({ sessionKey: child, agentId: "boss", spawnedBy: root, spawnDepth: 1 });
    await createSpawned({ sessionKey: grandchild, agentId: "worker", spawnedBy: child, spawnDepth: 2 });
    await drive([root, child, grandchild]);
    const tree = await openStream(sessionPath(root, "/events?tree=1&after=0"));
    const seen = new Set<string>();
    let last: StreamEvent | undefined;
    while (seen.size < 3) {
      last = await tree.next();
      seen.add(String(last.data.sessionKey));
    }
    expect(seen).toEqual(new Set([root, child, grandchild]));
    // Live: a message into the grandchild arrives tagged with its key.
    await importMessages(grandchild, [msg(`g-${u}`, "user", "deep news", 1_763_700_000_000)]);
    const news = await tree.until((event) => event.event === "message");
    const arrived = news.at(-1);
    expect(arrived?.data).toMatchObject({ sessionKey: grandchild, data: { messageId: `g-${u}` } });
    await tree.close();
    // A live-only tree says where it starts: a reader dropped before any event resumes from there.
    const live = await openStream(sessionPath(root, "/events?tree=1"));
    const ready = await live.next();
    expect(ready).toMatchObject({ event: "ready", data: { sessions: 3 } });
    await live.close();
    await importMessages(child, [msg(`q-${u}`, "user", "while away", 1_763_700_000_000)]);
    const back = await openStream(sessionPath(root, "/events?tree=1"), {
      headers: { "Last-Event-ID": String(ready.id) },
    });
    expect((await back.next()).data).toMatchObject({ sessionKey: child, data: { messageId: `q-${u}` } });
    await back.close();
    // One id resumes every session where it was: the next event is the next new one, nothing repeated.
    const resumed = await openStream(sessionPath(root, "/events?tree=1"), {
      headers: { "Last-Event-ID": String(arrived?.id) },
    });
    await importMessages(child, [msg(`c-${u}`, "user", "child news", 1_763_700_000_000)]);
    // The message written while the live-only reader was away comes first, then the new one.
    expect((await resumed.next()).data).toMatchObject({ sessionKey: child, data: { messageId: `q-${u}` } });
    expect((await resumed.next()).data).toMatchObject({ sessionKey: child, data: { messageId: `c-${u}` } });
    await resumed.close();
  });
});
