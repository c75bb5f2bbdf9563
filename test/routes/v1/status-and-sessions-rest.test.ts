import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { applySessionMigrations } from "../../../src/session/schema/migrations";
import {
  ADMIN,
  AGENT_TOKENS,
  type ApiError,
  call,
  createSession,
  createSpawned,
  exportJsonl,
  getSession,
  importMessages,
  jsonlBytes,
  keysOf,
  msg,
  type SessionRow,
  sessionPath,
  tool,
  UUID,
  uid,
} from "../../support";

/** `PATCH /v1/sessions/{key}`; `Body` is the answer expected (the row, or ApiError). */
const patch = <Body = SessionRow>(key: string, body: unknown) =>
  call<Body>("PATCH", sessionPath(key), { token: ADMIN, body });
const exportText = async (key: string) => {
  const exported = await exportJsonl(key);
  return { status: exported.status, text: new TextDecoder().decode(exported.bytes) };
};

describe("session_status", () => {
  it("shows the card of the caller's own session by default and of a visible one by key", async () => {
    const u = uid();
    const key = `agent:main:status-${u}`;
    await createSession({ agentId: "main", key });
    await createSpawned({
      sessionKey: `agent:main:subagent:${crypto.randomUUID()}`,
      agentId: "main",
      spawnedBy: key,
    });
    const own = await tool("session_status", key);
    expect(own).toEqual({
      ok: true,
      sessionKey: key,
      agentId: "main",
      changedModel: false,
      stateVersion: 1,
      statusText: expect.any(String),
    });
    expect(own.statusText.split("\n")).toEqual([
      "Switchboard 0.1.0",
      "Model: scripted/echo",
      // Context used (totalTokens) of the window (contextTokens: the agent's contextWindow, default 128000 for a model not known).
      "Tokens: 0 in / 0 out • context 0/128.0k • Compactions: 0",
      `Session: ${key} • last activity just now`,
      "Runtime: none yet • thinking default",
      "Run: idle",
      "Sub-agents: 0 active, 1 recent",
    ]);
    expect(await tool("session_status", key, { sessionKey: "current" })).toEqual(own);

    const child = `agent:main:discord:group:kid-${u}`;
    await createSpawned({ sessionKey: child, agentId: "main", spawnedBy: key, label: "kid" });
    await call("PATCH", sessionPath(child), { token: ADMIN, body: { thinkingLevel: "high" } });
    const childCard = await tool("session_status", key, { sessionKey: child });
    expect(childCard.sessionKey).toBe(child);
    expect(childCard.statusText).toContain("thinking high");
    expect(childCard.statusText).toContain(`Session: ${child} •`);
  });

  it("counts children in the index only for a session told of one, or one from before children were told", async () => {
    const parent = `agent:main:status-kids-${uid()}`;
    await createSession({ agentId: "main", key: parent });
    const subAgents = async () => (await tool("session_status", parent)).statusText.split("\n").at(-1);
    expect(await subAgents()).toBe("Sub-agents: 0 active, 0 recent");
    const child = `agent:main:subagent:${crypto.randomUUID()}`;
    await createSpawned({ sessionKey: child, agentId: "main", spawnedBy: parent });
    const sql = <T>(body: (sql: SqlStorage) => T) =>
      runInDurableObject(env.SESSION.getByName(parent), (_instance, state) => body(state.storage.sql));
    // The child's creation told its parent (through the child's outbox), and the card counts it.
    expect(await sql((db) => db.exec("SELECT session_key FROM child").toArray())).toEqual([
      { session_key: child },
    ]);
    expect(await subAgents()).toBe("Sub-agents: 0 active, 1 recent");
    // A parent never told asks the index nothing: its card counts no children.
    await sql((db) => db.exec("DELETE FROM child"));
    expect(await subAgents()).toBe("Sub-agents: 0 active, 0 recent");
    // Migration 0020 marks a session that existed before it ('*'), so the index is asked for its children.
    const marked = await sql((db) => {
      db.exec("DROP TABLE child; DELETE FROM _migrations WHERE id = '0020_child'");
      applySessionMigrations(db);
      return db.exec("SELECT session_key FROM child").toArray();
    });
    expect(marked).toEqual([{ session_key: "*" }]);
    expect(await subAgents()).toBe("Sub-agents: 0 active, 1 recent");
  });

  it("sets a model override, 'default' clears it, an unknown model is an error result", async () => {
    const key = `agent:main:model-${uid()}`;
    await createSession({ agentId: "main", key });
    const set = await tool("session_status", key, { model: "scripted/research" });
    expect(set).toMatchObject({ ok: true, sessionKey: key, changedModel: true });
    expect(set.statusText).toContain("Model: scripted/research (session override)");
    expect((await getSession(key)).json.model).toBe("scripted/research");
    expect((await tool("sessions_list", key)).sessions[0]?.model).toBe("scripted/research");

    const unknown = await tool("session_status", key, { model: "gpt-imaginary" });
    expect(unknown).toEqual({
      status: "error",
      error: expect.stringContaining('Unknown model "gpt-imaginary"'),
    });
    expect((await getSession(key)).json.model).toBe("scripted/research");

    const cleared = await tool("session_status", key, { model: "default" });
    expect(cleared.changedModel).toBe(true);
    expect(cleared.statusText).toContain("Model: scripted/echo\n");
    expect(cleared.statusText).not.toContain("override");
    expect((await getSession(key)).json.model).toBe("scripted/echo");
    expect((await tool("sessions_list", key)).sessions[0]?.model).toBe("scripted/echo");
  });

  it("applies visibility: another tree or another agent is forbidden, a missing session an error", async () => {
    const u = uid();
    const key = `agent:main:vis-${u}`;
    const sibling = `agent:main:sibling-${u}`;
    await createSession({ agentId: "main", key });
    await createSession({ agentId: "main", key: sibling });
    await createSession({ agentId: "research", key: `agent:research:other-${u}` });
    const forbidden = await tool("session_status", key, { sessionKey: sibling });
    expect(forbidden).toEqual({
      status: "forbidden",
      error: expect.stringContaining("tools.sessions.visibility=tree"),
    });
    // A forbidden model change changes nothing.
    expect(await tool("session_status", key, { sessionKey: sibling, model: "scripted/ops" })).toMatchObject({
      status: "forbidden",
    });
    expect((await getSession(sibling)).json.model).toBe("scripted/echo");
    const crossAgent = await tool("session_status", key, { sessionKey: `agent:research:other-${u}` });
    expect(crossAgent.status).toBe("forbidden");
    expect(crossAgent.error).toContain("tools.agentToAgent.enabled=true");
    const missing = await tool("session_status", key, { sessionKey: `agent:main:missing-${u}` });
    expect(missing).toEqual({ status: "error", error: expect.stringContaining("sessions_list") });
  });
});

describe("REST sessions", () => {
  it("creates (201), refuses a duplicate (409), generates a key, reads legacy keys with agentId", async () => {
    const u = uid();
    const created = await createSession({
      agentId: "main",
      key: `agent:main:discord:group:rest-${u}`,
      label: "rest",
      displayName: "REST chat",
      subject: "Subject",
      deliveryContext: { channel: "discord", to: "channel:1", threadId: 42 },
    });
    expect(created).toEqual({
      key: `agent:main:discord:group:rest-${u}`,
      agentId: "main",
      stateVersion: 1,
      kind: "group",
      channel: "discord",
      sessionId: expect.stringMatching(UUID),
      label: "rest",
      displayName: "REST chat",
      subject: "Subject",
      createdAt: expect.any(Number),
      updatedAt: created.createdAt,
      model: "scripted/echo",
      contextTokens: 128_000,
      derivedTitle: "REST chat",
      deliveryContext: { channel: "discord", to: "channel:1", threadId: 42 },
      archived: false,
      pinned: false,
    });
    const again = await call<ApiError>("POST", "/v1/sessions", {
      token: ADMIN,
      body: { agentId: "main", key: `agent:main:discord:group:rest-${u}` },
    });
    expect(again.status).toBe(409);
    expect(again.json.error.code).toBe("conflict");
    expect((await getSession(created.key)).json.sessionId).toBe(created.sessionId);

    const generated = await createSession({ agentId: "research" });
    expect(generated.key).toMatch(/^agent:research:api:[0-9a-f-]{36}$/);
    expect(generated.kind).toBe("other");

    const legacy = await createSession({ agentId: "research", key: `telegram:direct:${u}` });
    expect(legacy).toMatchObject({
      key: `agent:research:telegram:direct:${u}`,
      agentId: "research",
      kind: "other",
      channel: "telegram",
    });
    // An agent token creates in its own agent; a legacy key is read as that agent's.
    const byAgent = await call("POST", "/v1/sessions", {
      token: AGENT_TOKENS.ops,
      body: { key: `cron:job-${u}` },
    });
    expect(byAgent.status).toBe(201);
    expect(byAgent.json).toMatchObject({ key: `agent:ops:cron:job-${u}`, kind: "cron", channel: "internal" });
  });

  it("gets a session by URL-encoded key; unknown is 404", async () => {
    const u = uid();
    const created = await createSession({ agentId: "main", key: `agent:main:slack:channel:c-${u}:thread:9` });
    const got = await getSession(created.key);
    expect(got.status).toBe(200);
    expect(got.json).toEqual(created);
    const missing = await getSession<ApiError>(`agent:main:missing-${u}`);
    expect(missing.status).toBe(404);
    expect(missing.json.error.code).toBe("not_found");
  });

  it("patches each field, null clears it, a bad model is 400; the index follows", async () => {
    const key = `agent:main:patch-${uid()}`;
    await createSession({ agentId: "main", key });
    const changes = {
      label: "new label",
      displayName: "New name",
      sendPolicy: "deny",
      model: "scripted/ops",
      thinkingLevel: "low",
    };
    for (const [field, value] of Object.entries(changes)) {
      const patched = await patch<Record<string, unknown>>(key, { [field]: value });
      expect(patched.status, field).toBe(200);
      expect(patched.json[field], field).toBe(value);
    }
    const row = (await tool("sessions_list", key, { label: "new label" })).sessions[0];
    expect(row).toMatchObject(changes);
    expect((await getSession(key)).json).toMatchObject(changes);

    const badModel = await patch<ApiError>(key, { model: "nope/model" });
    expect(badModel.status).toBe(400);
    expect(badModel.json.error.message).toMatch(/^model: /);
    expect((await getSession(key)).json.model).toBe("scripted/ops");

    const cleared = await patch(key, {
      label: null,
      displayName: null,
      sendPolicy: null,
      model: null,
      thinkingLevel: null,
    });
    expect(cleared.status).toBe(200);
    for (const field of ["label", "displayName", "sendPolicy", "thinkingLevel"]) {
      expect(cleared.json, field).not.toHaveProperty(field);
    }
    expect(cleared.json.model).toBe("scripted/echo");
    const listed = (await tool("sessions_list", key)).sessions[0];
    expect(listed).not.toHaveProperty("label");
    expect(listed).not.toHaveProperty("sendPolicy");
    expect(listed?.model).toBe("scripted/echo");
    expect((await tool("sessions_list", key, { label: "new label" })).count).toBe(0);
    expect((await patch(`agent:main:missing-${uid()}`, { label: "x" })).status).toBe(404);
  });

  it("deletes: then 404 everywhere and gone from sessions_list; the key can be created afresh", async () => {
    const u = uid();
    const parent = `agent:main:del-parent-${u}`;
    const key = `agent:main:discord:group:del-${u}`;
    await createSpawned({ sessionKey: key, agentId: "main", spawnedBy: parent, label: "doomed" });
    await importMessages(key, [msg("m1", "user", "remember me", Date.now())]);
    expect(keysOf(await tool("sessions_list", parent))).toEqual([key]);

    const deleted = await call("DELETE", sessionPath(key), { token: ADMIN });
    expect(deleted.status).toBe(200);
    expect(deleted.json).toEqual({ deleted: true });
    expect((await getSession(key)).status).toBe(404);
    expect((await exportText(key)).status).toBe(404);
    expect((await call("DELETE", sessionPath(key), { token: ADMIN })).status).toBe(404);
    expect((await tool("sessions_list", parent)).count).toBe(0);
    expect(await tool("sessions_history", parent, { sessionKey: key })).toEqual({
      status: "error",
      error: expect.stringContaining("sessions_list"),
    });

    const recreated = await createSession({ agentId: "main", key });
    expect(recreated).not.toHaveProperty("label");
    expect((await exportText(key)).text).toBe("");
    expect((await importMessages(key, [msg("m1", "user", "new life", Date.now())])).imported).toBe(1);
  });
});

describe("REST transcripts", () => {
  it("imports idempotently by message id", async () => {
    const key = `agent:main:imp-${uid()}`;
    await createSession({ agentId: "main", key });
    const now = Date.now();
    const first = [msg("a", "user", "one", now - 3), msg("b", "assistant", "two", now - 2)];
    expect(await importMessages(key, first)).toEqual({ imported: 2, skipped: 0, totalMessages: 2 });
    expect(await importMessages(key, first)).toEqual({ imported: 0, skipped: 2, totalMessages: 2 });
    // A re-sent id keeps the stored message even if the body differs.
    expect(
      await importMessages(key, [msg("b", "assistant", "changed", now), msg("c", "user", "three", now - 1)]),
    ).toEqual({ imported: 1, skipped: 1, totalMessages: 3 });
    const lines = (await exportText(key)).text.trimEnd().split("\n");
    expect(lines.map((line) => JSON.parse(line).id)).toEqual(["a", "b", "c"]);
    expect(JSON.parse(lines[1] ?? "").content).toBe("two");
    expect((await tool("sessions_history", key, { sessionKey: "current" })).totalMessages).toBe(3);
  });

  it("exports JSONL byte for byte as imported, unknown fields and key order included", async () => {
    const key = `agent:main:exp-${uid()}`;
    await createSession({ agentId: "main", key });
    const messages = [
      {
        timestamp: 1_700_000_000_000,
        role: "user",
        id: "u-1",
        content: 'héllo ☃ \u2028 "quoted" <think>kept verbatim</think> sk-1234567890abcdef1234',
        customField: { nested: [1, 2.5, null, true], "weird key": "x" },
        provenance: { sourceChannel: "discord", kind: "external_user", extra: 1 },
      },
      {
        id: "a-1",
        role: "assistant",
        content: [
          { text: "answer", type: "text", annotations: [] },
          { type: "thinking", thinking: "hmm", signature: "sig" },
          { type: "toolCall", id: "call-1", name: "lookup", arguments: { token: "secret-value", q: "x" } },
          { type: "image", data: "aGVsbG8=", mimeType: "image/png" },
        ],
        usage: { input: 10, output: 20, cacheRead: 0 },
        cost: { total: 0.0012 },
        details: { anything: "goes" },
        timestamp: 1_700_000_000_500,
        runId: "run-1",
      },
      {
        id: "t-1",
        role: "toolResult",
        content: "result",
        timestamp: 1_700_000_001_000,
        toolCallId: "call-1",
      },
    ];
    await importMessages(key, messages);
    const exported = await exportJsonl(key);
    expect(exported.status).toBe(200);
    expect(exported.contentType).toBe("application/x-ndjson; charset=utf-8");
    expect(exported.bytes).toEqual(jsonlBytes(messages));
  });

  it("streams an export of more than one chunk completely and in order", async () => {
    const key = `agent:main:big-${uid()}`;
    await createSession({ agentId: "main", key });
    const base = Date.now() - 10_000_000;
    const count = 1234;
    const messages = Array.from({ length: count }, (_, i) =>
      msg(`m${i}`, i % 3 === 2 ? "toolResult" : i % 2 ? "assistant" : "user", `message ${i}`, base + i),
    );
    expect(await importMessages(key, messages.slice(0, 700))).toMatchObject({ imported: 700 });
    expect(await importMessages(key, messages.slice(600))).toMatchObject({
      imported: count - 700,
      skipped: 100,
    });
    const exported = await exportJsonl(key);
    expect(exported.status).toBe(200);
    expect(exported.bytes).toEqual(jsonlBytes(messages));
  });

  it("exports exactly one full chunk (500 messages) without a trailing gap or repeat", async () => {
    const key = `agent:main:chunk-${uid()}`;
    await createSession({ agentId: "main", key });
    const messages = Array.from({ length: 500 }, (_, i) => msg(`m${i}`, "user", `m ${i}`, 1000 + i));
    await importMessages(key, messages);
    const lines = (await exportText(key)).text.split("\n");
    expect(lines).toHaveLength(501);
    expect(lines.at(-1)).toBe("");
    expect(lines.at(-2)).toBe(JSON.stringify(messages[499]));
  });
});
