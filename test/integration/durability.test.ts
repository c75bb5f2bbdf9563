import { evictDurableObject, runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  ADMIN,
  call,
  createSession,
  exportJsonl,
  getSession,
  importMessages,
  jsonlBytes,
  keysOf,
  msg,
  type SessionRow,
  sessionPath,
  skipRetryWaits,
  stub,
  tool,
  uid,
} from "../support";
import { shards } from "../support/shards";

/** Makes every D1 access to the session index (each shard) fail, as an outage would, until `restore`. */
async function takeIndexOffline(): Promise<{ restore: () => Promise<void> }> {
  const offline = shards();
  for (const db of offline) await db.exec("ALTER TABLE session_index RENAME TO session_index_offline");
  let restored = false;
  return {
    restore: async () => {
      if (restored) return;
      restored = true;
      for (const db of offline) await db.exec("ALTER TABLE session_index_offline RENAME TO session_index");
    },
  };
}

/** Runs `during` with the index offline, and always brings it back; returns what `during` returns. */
async function withIndexOffline<T>(during: () => Promise<T>): Promise<T> {
  const outage = await takeIndexOffline();
  try {
    return await during();
  } finally {
    await outage.restore();
  }
}

const listKeys = async (requester: string, args: Record<string, unknown> = {}) =>
  keysOf(await tool("sessions_list", requester, args));

describe("eviction", () => {
  it("loses nothing: history, export, list row and id dedupe are the same afterwards", async () => {
    const key = `agent:main:evict-${uid()}`;
    await createSession({ agentId: "main", key, label: "evict" });
    const now = Date.now();
    const messages = [
      msg("e1", "user", "question with ghp_abcdefghijklmnopqrstuvwxyz0123456789", now - 4, { custom: 1 }),
      msg("e2", "assistant", [{ type: "toolCall", id: "t", name: "x", arguments: { a: 1 } }], now - 3),
      msg("e3", "toolResult", "output", now - 2, { toolCallId: "t" }),
      msg("e4", "assistant", "Before <think>x</think> after", now - 1, { usage: { input: 1 } }),
    ];
    await importMessages(key, messages);
    const snapshot = async () => ({
      history: await tool("sessions_history", key, { sessionKey: "current" }),
      withTools: await tool("sessions_history", key, { sessionKey: "current", includeTools: true, limit: 2 }),
      listed: await tool("sessions_list", key, {
        includeDerivedTitles: true,
        includeLastMessage: true,
        messageLimit: 5,
      }),
      row: (await call("GET", sessionPath(key), { token: ADMIN })).json,
      exported: (await exportJsonl(key)).bytes,
    });
    const before = await snapshot();
    expect(before.exported).toEqual(jsonlBytes(messages));
    expect(before.history.totalMessages).toBe(3);

    await evictDurableObject(stub(key));
    expect(await snapshot()).toEqual(before);

    // The object picks up where it left off: stored ids still dedupe, new rows go after the old ones.
    const later = msg("e5", "user", "after eviction", now);
    expect(await importMessages(key, [messages[0], later])).toEqual({
      imported: 1,
      skipped: 1,
      totalMessages: 5,
    });
    expect((await exportJsonl(key)).bytes).toEqual(jsonlBytes([...messages, later]));
    const history = await tool("sessions_history", key, { sessionKey: "current", includeTools: true });
    expect(history.messages.map((message: { id: string }) => message.id)).toEqual([
      "e1",
      "e2",
      "e3",
      "e4",
      "e5",
    ]);
    // Nothing was left owing: no outbox alarm is pending.
    expect(await runDurableObjectAlarm(stub(key))).toBe(false);
  });
});

describe("index outbox", () => {
  it("retries an index write that failed: the alarm delivers it once D1 is back", async () => {
    const u = uid();
    const key = `agent:main:outbox-${u}`;
    await createSession({ agentId: "main", key, label: `before-${u}` });
    await withIndexOffline(async () => {
      const patched = await call<SessionRow>("PATCH", sessionPath(key), {
        token: ADMIN,
        body: { label: `after-${u}` },
      });
      // The session object accepted the change; only its index update is owed.
      expect(patched.status).toBe(200);
      expect(patched.json.label).toBe(`after-${u}`);
    });
    expect((await getSession(key)).json.label).toBe(`after-${u}`);
    expect(await listKeys(key, { label: `after-${u}` })).toEqual([]);
    expect(await listKeys(key, { label: `before-${u}` })).toEqual([key]);

    await skipRetryWaits(key);
    expect(await runDurableObjectAlarm(stub(key))).toBe(true);
    expect(await listKeys(key, { label: `after-${u}` })).toEqual([key]);
    expect(await listKeys(key, { label: `before-${u}` })).toEqual([]);
    expect(await runDurableObjectAlarm(stub(key))).toBe(false);
  });

  it("keeps retrying through further failures and an eviction, then delivers the newest state", async () => {
    const u = uid();
    const key = `agent:main:outbox2-${u}`;
    await createSession({ agentId: "main", key });
    await withIndexOffline(async () => {
      await importMessages(key, [msg("m1", "user", "first words", Date.now() - 60_000)]);
      await call("PATCH", sessionPath(key), { token: ADMIN, body: { displayName: `Renamed ${u}` } });
      // The alarm fires at the retry time while D1 is still down: the entry stays, the alarm is armed again.
      await skipRetryWaits(key);
      expect(await runDurableObjectAlarm(stub(key))).toBe(true);
      await skipRetryWaits(key);
      expect(await runDurableObjectAlarm(stub(key))).toBe(true);
      await evictDurableObject(stub(key));
    });
    expect((await tool("sessions_list", key, { search: `renamed ${u}` })).count).toBe(0);

    await skipRetryWaits(key);
    expect(await runDurableObjectAlarm(stub(key))).toBe(true);
    const listed = await tool("sessions_list", key, {
      search: `renamed ${u}`,
      includeDerivedTitles: true,
      includeLastMessage: true,
    });
    expect(listed.sessions).toEqual([
      expect.objectContaining({
        key,
        displayName: `Renamed ${u}`,
        derivedTitle: `Renamed ${u}`,
        lastMessagePreview: "first words",
        updatedAt: expect.any(Number),
      }),
    ]);
    expect(listed.sessions[0]?.updatedAt).toBeLessThan(Date.now() - 50_000);
    expect(await runDurableObjectAlarm(stub(key))).toBe(false);
  });

  it("a session created during an outage becomes findable once its index row is delivered", async () => {
    const u = uid();
    const requester = `agent:main:outbox3-${u}`;
    const created = await withIndexOffline(() => createSession({ agentId: "main", key: requester }));
    await importMessages(requester, [msg("m1", "user", "hello", Date.now())]);
    // The import's own index write succeeded, carrying the creation with it.
    expect(await listKeys(requester)).toEqual([requester]);

    const lonely = `agent:main:outbox3b-${u}`;
    await withIndexOffline(async () => {
      await createSession({ agentId: "main", key: lonely });
    });
    // Not in the index yet: listings (and lookups by sessionId or label) cannot find it...
    expect(await listKeys(lonely)).toEqual([]);
    // ...while a read by its key goes to the session object itself, which has it.
    const byKey = await tool("sessions_history", lonely, { sessionKey: "current" });
    expect(byKey).toMatchObject({ sessionKey: lonely, messages: [], totalMessages: 0 });
    await skipRetryWaits(lonely);
    expect(await runDurableObjectAlarm(stub(lonely))).toBe(true);
    expect(await listKeys(lonely)).toEqual([lonely]);
    expect(created.key).toBe(requester);
  });

  it("a delete during an outage is finished by the alarm: the row leaves the index, storage is wiped", async () => {
    const u = uid();
    const parent = `agent:main:outbox4-${u}`;
    const key = `agent:main:api:gone-${u}`;
    await env.SESSION.getByName(key).create({ sessionKey: key, agentId: "main", spawnedBy: parent });
    await importMessages(key, [msg("m1", "user", "delete me", Date.now())]);
    await withIndexOffline(async () => {
      expect((await call("DELETE", sessionPath(key), { token: ADMIN })).status).toBe(200);
    });
    expect((await call("GET", sessionPath(key), { token: ADMIN })).status).toBe(404);
    // The stale index row is still there until the alarm removes it.
    expect(await listKeys(parent)).toEqual([key]);
    await skipRetryWaits(key);
    expect(await runDurableObjectAlarm(stub(key))).toBe(true);
    expect(await listKeys(parent)).toEqual([]);
    expect(await runDurableObjectAlarm(stub(key))).toBe(false);
    await createSession({ agentId: "main", key });
    expect((await exportJsonl(key)).bytes).toEqual(new Uint8Array());
  });
});
