import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sessionApi } from "../../../src/session/client";
import {
  ADMIN,
  call,
  createSession,
  sendMessage,
  session,
  sessionPath,
  stub,
  tool,
  transcript,
  uid,
  waitRun,
} from "../../support";

interface Row {
  sessionId: string;
  stateVersion?: number;
  childSessions?: string[];
}

const row = async (key: string) => (await call<Row>("GET", sessionPath(key), { token: ADMIN })).json;
const remove = async (key: string) =>
  expect((await call("DELETE", sessionPath(key), { token: ADMIN })).status).toBe(200);
const storedObjects = (key: string) =>
  runInDurableObject(stub(key), (_instance, state) =>
    state.storage.sql.exec("SELECT name FROM sqlite_master").toArray(),
  );

// SPEC §23 "Generations": a key created again after a deletion is a new session and inherits nothing.
describe("a key created again after its deletion", () => {
  it("goes on counting stateVersion from the deleted session's last one, its storage wiped meanwhile", async () => {
    const key = `agent:main:api:gen-${uid()}`;
    await createSession({ key });
    await waitRun(await sendMessage(key, "count some events"));
    const before = (await row(key)).stateVersion ?? 0;
    expect(before).toBeGreaterThan(3);
    await remove(key);
    expect(await storedObjects(key)).toEqual([]);

    const again = await createSession({ key });
    // Its `created` event is the one after the old log's last.
    expect((await row(key)).stateVersion).toBe(before + 1);
    await remove(key);
    await createSession({ key });
    expect((await row(key)).stateVersion).toBe(before + 2);
    expect(again.sessionId).not.toBe((await row(key)).sessionId);
  });

  it("but a key created as minted just now (a spawn's random key) reads no floor: its log starts afresh", async () => {
    const key = `agent:main:subagent:${crypto.randomUUID()}`;
    await createSession({ key });
    await waitRun(await sendMessage(key, "count some events"));
    expect((await row(key)).stateVersion ?? 0).toBeGreaterThan(3);
    await remove(key);

    // Only a random key is created so (src/tools/sessions-spawn.ts): none can have been deleted before.
    const created = await sessionApi(env.SESSION, key).create({
      sessionKey: key,
      agentId: "main",
      newKey: true,
    });
    expect(created.ok).toBe(true);
    expect((await row(key)).stateVersion).toBe(1);
  });

  it("lists none of the deleted session's children (subagents list, childSessions)", async () => {
    const parent = `agent:main:gen-parent-${uid()}`;
    await createSession({ agentId: "main", key: parent });
    const spawned = await tool("sessions_spawn", parent, { task: `old task ${uid()}`, agentId: "research" });
    const { childSessionKey } = spawned as unknown as { childSessionKey: string };
    expect(JSON.stringify(await tool("subagents", parent, { action: "list" }))).toContain(childSessionKey);
    expect((await row(parent)).childSessions).toEqual([childSessionKey]);

    await remove(parent);
    await createSession({ agentId: "main", key: parent });
    expect(JSON.stringify(await tool("subagents", parent, { action: "list" }))).not.toContain(
      childSessionKey,
    );
    expect((await row(parent)).childSessions).toBeUndefined();
    const listed = (await tool("sessions_list", parent, { search: parent.split(":").at(-1) })) as unknown as {
      sessions: { key: string; childSessions?: string[] }[];
    };
    expect(listed.sessions.map((session) => session.key)).toContain(parent);
    expect(listed.sessions.find((session) => session.key === parent)?.childSessions).toBeUndefined();
    // Its own child is its own.
    const own = await tool("sessions_spawn", parent, { task: "new task", agentId: "research" });
    const ownKey = (own as unknown as { childSessionKey: string }).childSessionKey;
    expect((await row(parent)).childSessions).toEqual([ownKey]);
    const card = JSON.stringify(await tool("session_status", parent)).match(
      /Sub-agents: (\d+) active, (\d+) recent/,
    );
    expect(Number(card?.[1]) + Number(card?.[2])).toBe(1);
  });

  it("takes no watch notice owed to the deleted session of its key", async () => {
    const watcher = `agent:main:api:gen-watcher-${uid()}`;
    const watched = `agent:main:api:gen-watched-${uid()}`;
    await createSession({ key: watcher });
    await createSession({ key: watched });
    expect(await session(watched).watch(watcher)).toEqual({ ok: true, value: { watched: true } });
    await remove(watcher);
    await createSession({ key: watcher });

    await waitRun(await sendMessage(watched, "news for whoever watches"));
    expect(await transcript(watcher)).toEqual([]);
    // The watched session dropped the old watcher: nothing more is owed to the key.
    const watchers = await runInDurableObject(stub(watched), (_instance, state) =>
      state.storage.sql.exec("SELECT watcher_key FROM watcher").toArray(),
    );
    expect(watchers).toEqual([]);
  });

  it("takes no collector result of the deleted session's members, nor knows them", async () => {
    const requester = `agent:main:api:gen-collect-${uid()}`;
    await createSession({ key: requester });
    const runId = crypto.randomUUID();
    const member = {
      runId,
      groupId: "g",
      childKey: `agent:research:subagent:${crypto.randomUUID()}`,
      caps: { maxConcurrent: 1, maxChildrenPerGroup: 5, maxTotalPerGroup: 5 },
    };
    expect(await session(requester).admitCollector(member)).toMatchObject({
      ok: true,
      value: { state: "running" },
    });
    await remove(requester);
    await createSession({ key: requester });

    // The member's task ends now and reports to its requester's key: the new session is not its requester.
    const result = { runId, status: "done" as const, result: "the old session's answer" };
    expect(await session(requester).collectorResult(result)).toEqual({ ok: true, value: { taken: false } });
    expect(await session(requester).waitCollectors([runId], 0)).toMatchObject({
      ok: true,
      value: { completed: [], pending: [], unknown: [runId] },
    });
    const rows = await runInDurableObject(stub(requester), (_instance, state) =>
      state.storage.sql.exec("SELECT run_id FROM collector").toArray(),
    );
    expect(rows).toEqual([]);
  });
});
