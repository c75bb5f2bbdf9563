import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { searchMessagesInsert } from "../../src/index-db/search-write";
import {
  ADMIN,
  AGENT_TOKENS,
  call,
  callTool,
  createSession,
  createSpawned,
  driveUntil,
  evict,
  importMessages,
  msg,
  runAlarms,
  sessionPath,
  stub,
  tool,
  toolWithConfig,
  uid,
  workerConfigWith,
} from "../support";
import { connectMcp, detailsOf } from "../support/mcp";
import { shardOf } from "../support/shards";

const search = (requester: string, args: Record<string, unknown>) => tool("sessions_search", requester, args);

/** The indexed rows of a session in D1, however they are visible. */
async function indexedIds(sessionKey: string): Promise<string[]> {
  const rows = await shardOf(sessionKey)
    .prepare("SELECT message_id FROM search_message WHERE session_key = ? ORDER BY message_id")
    .bind(sessionKey)
    .all<{ message_id: string }>();
  return rows.results.map((row) => row.message_id);
}

/**
 * The session object's D1 fails: every batch, and each search row insert after the first `inserts`, as
 * if D1 went away in the middle of a pass. The wrapper lives in the instance: evicting it heals D1.
 */
async function breakSearchWrites(key: string, inserts: number): Promise<void> {
  await runInDurableObject(stub(key), (instance) => {
    const bindings = Reflect.get(instance, "env") as Env;
    let written = 0;
    const flaky = (statement: D1PreparedStatement): D1PreparedStatement =>
      new Proxy(statement, {
        get(target, property) {
          if (property === "bind") return (...values: unknown[]) => flaky(target.bind(...values));
          if (property === "run")
            return async () => {
              if (++written > inserts) throw new Error("D1 unavailable");
              return target.run();
            };
          const value = Reflect.get(target, property);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
    const db = new Proxy(bindings.DB, {
      get(target, property) {
        if (property === "batch") return async () => Promise.reject(new Error("D1 unavailable"));
        if (property === "prepare")
          return (query: string) => {
            const statement = target.prepare(query);
            return query.includes("INSERT OR IGNORE INTO search_message") ? flaky(statement) : statement;
          };
        const value = Reflect.get(target, property);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const patched = new Proxy(bindings, {
      get: (target, property) => (property === "DB" ? db : Reflect.get(target, property)),
    });
    Object.defineProperty(instance, "env", { value: patched, configurable: true, writable: true });
  });
}

async function sessionWith(key: string, messages: unknown[]): Promise<void> {
  await createSession({ agentId: "main", key });
  await importMessages(key, messages);
}

describe("sessions_search", () => {
  it("finds user and assistant text, tool results only with includeTools, never reasoning or system notes; snippets made safe", async () => {
    const u = uid();
    const word = `zq${u}`;
    const key = `agent:main:search-${u}`;
    const now = Date.now() - 60_000;
    const secret = "sk-1234567890abcdef1234";
    const long = `${"lead ".repeat(100)}${word} token ${secret} ${"tail ".repeat(100)}`;
    await sessionWith(key, [
      msg("u1", "user", `please find ${word} here`, now),
      msg(
        "a1",
        "assistant",
        [{ type: "text", text: `Answer <think>${word} secret thought</think> with ${word}` }],
        now + 1,
      ),
      msg("a2", "assistant", [{ type: "thinking", thinking: `${word} only in reasoning` }], now + 2),
      msg("t1", "toolResult", `tool output ${word}`, now + 3, { toolCallId: "c1" }),
      msg("s1", "system", `system note ${word}`, now + 4),
      msg("u2", "user", long, now + 5),
    ]);
    expect(await indexedIds(key)).toEqual(["a1", "t1", "u1", "u2"]);

    const found = await search(key, { query: ` ${word} ` });
    expect(found).not.toHaveProperty("truncated");
    expect(found).not.toHaveProperty("indexing");
    expect(found.results.map((hit) => hit.messageId).sort()).toEqual(["a1", "u1", "u2"]);
    const session = await call<{ sessionId: string }>("GET", sessionPath(key), { token: ADMIN });
    const user = found.results.find((hit) => hit.messageId === "u1");
    expect(user).toEqual({
      sessionKey: key,
      sessionId: session.json.sessionId,
      messageId: "u1",
      role: "user",
      timestamp: now,
      snippet: `please find ${word} here`,
      score: expect.any(Number),
    });
    expect(user?.score).toBeGreaterThan(0);
    // Ranked by score, best first.
    const scores = found.results.map((hit) => hit.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    // Reasoning removed from the assistant text, as sessions_history shows it.
    expect(found.results.find((hit) => hit.messageId === "a1")?.snippet).toBe(`Answer  with ${word}`);
    // A window around the match, cut on both sides, the secret masked before the cut.
    const cut = found.results.find((hit) => hit.messageId === "u2")?.snippet ?? "";
    expect(cut.length).toBeLessThanOrEqual(300);
    expect(cut.startsWith("…") && cut.endsWith("…")).toBe(true);
    expect(cut).toContain(`${word} token sk-123…1234`);
    expect(cut).not.toContain(secret);

    const withTools = await search(key, { query: word, includeTools: true });
    expect(withTools.results.map((hit) => hit.messageId).sort()).toEqual(["a1", "t1", "u1", "u2"]);
    expect(withTools.results.find((hit) => hit.messageId === "t1")?.role).toBe("toolResult");
    const assistant = await search(key, { query: word, role: "assistant" });
    expect(assistant.results.map((hit) => hit.messageId)).toEqual(["a1"]);
    // Every word is required; a quote in a word is a literal.
    expect((await search(key, { query: `${word} please` })).results.map((hit) => hit.messageId)).toEqual([
      "u1",
    ]);
    expect((await search(key, { query: `${word} "nowhere` })).results).toEqual([]);
    // Punctuation-only tokens are no words: "please -> find" finds u1; a query of them alone finds nothing.
    expect(
      (await search(key, { query: `please -> ${word} … \u200b` })).results.map((hit) => hit.messageId),
    ).toEqual(["u1"]);
    expect(await search(key, { query: "-> … \u200b" })).toEqual({ results: [] });
    // A secret is masked in the index itself: searching for it finds nothing.
    expect((await search(key, { query: secret })).results).toEqual([]);
  });

  it("applies visibility in the query, before the limit: a hidden session's hits never take a place", async () => {
    const u = uid();
    const word = `zv${u}`;
    const requester = `agent:main:req-${u}`;
    const child = `agent:main:child-${u}`;
    const hidden = `agent:main:hidden-${u}`;
    const now = Date.now() - 60_000;
    await createSession({ agentId: "main", key: requester });
    await createSpawned({ sessionKey: child, agentId: "main", spawnedBy: requester });
    await importMessages(child, [msg("c1", "user", `one ${word} among many other words here`, now)]);
    // The hidden session's hits rank better (shorter text, more occurrences) and are newer.
    await sessionWith(
      hidden,
      Array.from({ length: 5 }, (_, i) => msg(`h${i}`, "user", `${word} ${word}`, now + 10 + i)),
    );
    expect(await indexedIds(hidden)).toHaveLength(5);

    // Default visibility tree: the requester and its child.
    const page = await search(requester, { query: word, limit: 1 });
    expect(page.results.map((hit) => [hit.sessionKey, hit.messageId])).toEqual([[child, "c1"]]);
    expect(page).not.toHaveProperty("truncated");
    expect(page).not.toHaveProperty("nextCursor");

    // Visibility self: only the requester itself, though the others match.
    const self = workerConfigWith((config) => {
      config.tools.sessions.visibility = "self";
    });
    await importMessages(requester, [msg("r1", "user", `${word} in my own session`, now)]);
    const own = await toolWithConfig(self, "sessions_search", requester, { query: word, limit: 1 });
    expect(own.results?.map((hit) => [hit.sessionKey, hit.messageId])).toEqual([[requester, "r1"]]);

    // sessionKey: one visible session, resolved and refused exactly as sessions_history does.
    const one = await search(requester, { query: word, sessionKey: child });
    expect(one.results.map((hit) => hit.messageId)).toEqual(["c1"]);
    for (const sessionKey of [hidden, `agent:main:missing-${u}`, "agent:research:main"]) {
      const refused = await search(requester, { query: word, sessionKey });
      const history = await tool("sessions_history", requester, { sessionKey });
      expect(refused).toEqual({ status: history.status, error: history.error });
      expect(["error", "forbidden"]).toContain(refused.status);
    }
    // The requester's own session, never written, is there and empty (SPEC §12).
    const fresh = `agent:main:fresh-${u}`;
    expect(await search(fresh, { query: word, sessionKey: "current" })).toEqual({ results: [] });
  });

  it("pages with a cursor that stays stable while messages arrive, without repeats", async () => {
    const u = uid();
    const word = `zc${u}`;
    const key = `agent:main:page-${u}`;
    const now = Date.now() - 60_000;
    await sessionWith(
      key,
      Array.from({ length: 12 }, (_, i) =>
        msg(`m${String(i).padStart(2, "0")}`, "user", `${word} number ${i}`, now + i),
      ),
    );
    const first = await search(key, { query: word, limit: 5 });
    expect(first.results).toHaveLength(5);
    expect(first.truncated).toBe(true);
    expect(typeof first.nextCursor).toBe("string");
    await importMessages(key, [
      msg("late1", "user", `${word} late`, now + 100),
      msg("late2", "assistant", `${word} later`, now + 101),
    ]);
    const second = await search(key, { query: word, limit: 5, cursor: first.nextCursor });
    const third = await search(key, { query: word, limit: 5, cursor: second.nextCursor });
    expect(third.results).toHaveLength(2);
    expect(third).not.toHaveProperty("truncated");
    expect(third).not.toHaveProperty("nextCursor");
    const seen = [first, second, third].flatMap((page) => page.results.map((hit) => hit.messageId));
    expect(new Set(seen).size).toBe(12);
    expect(seen.sort()).toEqual(Array.from({ length: 12 }, (_, i) => `m${String(i).padStart(2, "0")}`));
    // Equal scores: newest first.
    expect(first.results.map((hit) => hit.messageId)).toEqual(["m11", "m10", "m09", "m08", "m07"]);
    // A new search sees the new messages.
    const fresh = await search(key, { query: word, limit: 25 });
    expect(fresh.results).toHaveLength(14);

    const bad = await callTool("sessions_search", key, { query: word, cursor: "not-a-cursor" });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain("cursor");
  });

  it("answers bad input with OpenClaw's errors (400 naming the field)", async () => {
    const key = `agent:main:bad-${uid()}`;
    const cases: [Record<string, unknown>, string][] = [
      [{}, "query must not be empty"],
      [{ query: "   " }, "query must not be empty"],
      [{ query: "x".repeat(4097) }, "query must not exceed 4096 characters"],
      [{ query: "x", limit: 26 }, "limit must be a positive integer"],
      [{ query: "x", limit: 0 }, "limit must be a positive integer"],
      [{ query: "x", role: "system" }, "role"],
      [{ query: "x", includeTools: "yes" }, "includeTools"],
    ];
    for (const [args, message] of cases) {
      const answer = await callTool<{ error: { message: string } }>("sessions_search", key, args);
      expect(answer.status, JSON.stringify(args)).toBe(400);
      expect(answer.json.error.message).toContain(message);
    }
    // Trimmed before the length check, as OpenClaw does: 4096 characters between spaces are fine.
    const padded = await callTool("sessions_search", key, { query: ` \n${"x".repeat(4096)}\t ` });
    expect(padded.status).toBe(200);
    // Through /tools/invoke too: whitespace only is a 400, a control-character-only query no words at all.
    const blank = await call<{ error: { message: string } }>("POST", "/tools/invoke", {
      token: ADMIN,
      body: { tool: "sessions_search", sessionKey: key, args: { query: " \t\n " } },
    });
    expect(blank.status).toBe(400);
    expect(blank.json.error.message).toContain("query must not be empty");
    const invoked = await call<{ ok: true; result: { details: unknown } }>("POST", "/tools/invoke", {
      token: ADMIN,
      body: { tool: "sessions_search", sessionKey: key, args: { query: "\u0000" } },
    });
    expect(invoked.json.result.details).toEqual({ results: [] });
  });

  it("searches archived sessions; drops a deleted session's rows; a re-created key starts empty", async () => {
    const u = uid();
    const key = `agent:main:gone-${u}`;
    const now = Date.now() - 60_000;
    await sessionWith(key, [msg("g1", "user", `zold${u} words`, now)]);
    expect(await indexedIds(key)).toEqual(["g1"]);
    // An archived session is searched too.
    expect(await tool("sessions", key, { action: "patch", archived: true })).toMatchObject({
      status: "updated",
    });
    expect((await search(key, { query: `zold${u}` })).results.map((hit) => hit.messageId)).toEqual(["g1"]);
    const old = await call<{ sessionId: string }>("GET", sessionPath(key), { token: ADMIN });
    const deleted = await call("DELETE", sessionPath(key), { token: ADMIN });
    expect(deleted.status).toBe(200);
    expect(await indexedIds(key)).toEqual([]);
    // A search batch still in flight when the delete landed writes nothing: its index row is gone.
    const late = { sessionKey: key, sessionId: old.json.sessionId, scope: "" };
    const lateRow = { messageId: "g2", role: "user", timestamp: now, text: `zold${u} late` };
    await shardOf(key).batch(searchMessagesInsert(shardOf(key), late, [lateRow]));
    expect(await indexedIds(key)).toEqual([]);
    // The earlier generation's index row left behind with its backlog flag and its rows (its delete
    // never reached D1): the re-created key's upsert keeps the column, its first index pass must clear it.
    await shardOf(key)
      .prepare(
        `INSERT INTO session_index (session_key, session_id, agent_id, kind, channel, created_at, updated_at,
         list_state, search_text, version, search_backlog)
       VALUES (?, 'earlier', 'main', 'other', 'internal', ?, ?, 0, '', 1, 1)`,
      )
      .bind(key, now, now)
      .run();
    const earlier = { sessionKey: key, sessionId: "earlier", scope: "" };
    const leftover = { messageId: "e1", role: "user", timestamp: now, text: `zold${u} left` };
    await shardOf(key).batch(searchMessagesInsert(shardOf(key), earlier, [leftover]));
    expect(await indexedIds(key)).toEqual(["e1"]);
    // The new generation's row upsert takes them (migrations/0017's trigger).
    await sessionWith(key, [msg("n1", "user", `znew${u} words`, now + 1)]);
    expect(await indexedIds(key)).toEqual(["n1"]);
    expect((await search(key, { query: `zold${u}` })).results).toEqual([]);
    expect(await search(key, { query: `znew${u}` })).toEqual({
      results: [expect.objectContaining({ messageId: "n1" })],
    });
  });

  it("indexes an import's backlog in bounded chunks, answering indexing meanwhile, each message once", async () => {
    const u = uid();
    const word = `zb${u}`;
    const key = `agent:main:backlog-${u}`;
    const now = Date.now() - 600_000;
    await createSession({ agentId: "main", key });
    await importMessages(
      key,
      Array.from({ length: 250 }, (_, i) =>
        msg(`b${i}`, i % 2 ? "assistant" : "user", `${word} line ${i}`, now + i),
      ),
    );
    // The import's own pass wrote the first chunk.
    expect(await indexedIds(key)).toHaveLength(100);
    const behind = await search(key, { query: word, limit: 3 });
    expect(behind).toMatchObject({
      indexing: true,
      warning:
        "Transcript indexing is in progress; results may be incomplete. Retry sessions_search shortly.",
      truncated: true,
    });
    expect(behind.results).toHaveLength(3);
    // The rest by its alarm (each chunk owes the next now, so the runtime may fire it too).
    const ids = await driveUntil(
      [key],
      async () => {
        const indexed = await indexedIds(key);
        return indexed.length >= 250 ? indexed : undefined;
      },
      "the whole backlog indexed",
    );
    expect(ids).toHaveLength(250);
    expect(new Set(ids).size).toBe(250);
    const caughtUp = await search(key, { query: `${word} 249` });
    expect(caughtUp).toEqual({ results: [expect.objectContaining({ messageId: "b249" })] });
  });

  it("indexes a transcript written before search existed, once the migration finds it", async () => {
    const u = uid();
    const word = `zo${u}`;
    const key = `agent:main:older-${u}`;
    await createSession({ agentId: "main", key });
    await importMessages(key, [msg("o1", "user", `${word} from before`, Date.now() - 60_000)]);
    // Back to the object as it was before migration 0017: no progress table, nothing owed, nothing in D1.
    await runInDurableObject(stub(key), (_instance, state) => {
      const sql = state.storage.sql;
      sql.exec("DROP TABLE search_progress");
      sql.exec("DELETE FROM outbox WHERE kind = 'search_index'");
      sql.exec("DELETE FROM _migrations WHERE id = '0017_search_progress'");
    });
    await shardOf(key).prepare("DELETE FROM search_message WHERE session_key = ?").bind(key).run();
    expect(await indexedIds(key)).toEqual([]);
    // The next instance applies the migration, which owes the backlog and sets the alarm for it.
    await evict(key);
    // Its alarm (run by the test runtime, or by this drive) indexes the transcript.
    await driveUntil([key], async () => ((await indexedIds(key)).length > 0 ? true : undefined), "the index");
    expect(await indexedIds(key)).toEqual(["o1"]);
    expect((await search(key, { query: word })).results).toEqual([
      expect.objectContaining({ messageId: "o1" }),
    ]);
  });

  it("is one tool on every surface: /tools/invoke, MCP and the OpenAPI document, from its one schema", async () => {
    const u = uid();
    const key = `agent:main:surface-${u}`;
    await sessionWith(key, [msg("s1", "user", `zs${u} everywhere`, Date.now() - 1000)]);
    const expected = [expect.objectContaining({ sessionKey: key, messageId: "s1" })];
    const invoked = await call<{ ok: true; result: { details: unknown } }>("POST", "/tools/invoke", {
      token: ADMIN,
      body: { tool: "sessions_search", sessionKey: key, args: { query: `zs${u}` } },
    });
    expect(invoked.json.result.details).toEqual({ results: expected });
    const mcp = await connectMcp(AGENT_TOKENS.main, { "X-Switchboard-Session": key });
    const listed = (await mcp.listTools()).tools.find((listedTool) => listedTool.name === "sessions_search");
    expect(listed?.inputSchema.required).toEqual(["query"]);
    expect(Object.keys(listed?.inputSchema.properties ?? {}).sort()).toEqual(
      ["cursor", "includeTools", "limit", "query", "role", "sessionKey"].sort(),
    );
    const called = await mcp.callTool({ name: "sessions_search", arguments: { query: `zs${u}` } });
    expect(detailsOf<"sessions_search">(called)).toEqual({ results: expected });
    const doc = await call<{ paths: Record<string, unknown> }>("GET", "/openapi.json");
    expect(doc.json.paths).toHaveProperty(["/v1/tools/sessions_search"]);
  });

  it("retries a failed index write by the outbox schedule, never writing a message twice", async () => {
    const u = uid();
    const key = `agent:main:flaky-${u}`;
    await createSession({ agentId: "main", key });
    await breakSearchWrites(key, 2);
    const now = Date.now() - 60_000;
    // Each message over half of what one insert binds (src/index-db/search-write.ts): one insert each.
    const padding = " filler".repeat(7_000);
    await importMessages(
      key,
      Array.from({ length: 5 }, (_, i) => msg(`f${i}`, "user", `zf${u} try ${i}${padding}`, now + i)),
    );
    // The batch failed; one by one, two rows went in before D1 failed again: the entry waits to retry.
    expect(await indexedIds(key)).toEqual(["f0", "f1"]);
    await evict(key);
    await runAlarms([key]);
    expect(await indexedIds(key)).toEqual(["f0", "f1", "f2", "f3", "f4"]);
    expect((await search(key, { query: `zf${u}`, limit: 25 })).results).toHaveLength(5);
  });

  it("counts a chunk as written only once its session's index row is there", async () => {
    const u = uid();
    const key = `agent:main:rowless-${u}`;
    await createSession({ agentId: "main", key });
    await importMessages(key, [msg("r1", "user", `zr${u} kept`, Date.now() - 60_000)]);
    // As if the session row's write were still retrying when the search chunk's own retry came: no row in
    // D1 (removed before the chunk is owed again, so its alarm cannot run first), and the transcript owed
    // to the index from its start.
    await shardOf(key).prepare("DELETE FROM session_index WHERE session_key = ?").bind(key).run();
    await runInDurableObject(stub(key), async (_instance, state) => {
      state.storage.sql.exec("DELETE FROM outbox WHERE kind = 'index_sync'");
      state.storage.sql.exec("DELETE FROM search_progress");
      state.storage.sql.exec(
        `INSERT INTO outbox (kind, dedupe_key, payload, next_attempt_at) VALUES ('search_index', 'search', '{"throughSeq":1}', 0)
         ON CONFLICT (dedupe_key) DO UPDATE SET next_attempt_at = 0, attempts = 0`,
      );
      await state.storage.setAlarm(Date.now());
    });
    // Until the attempt is over: the alarm set now may also fire by itself, and a runDurableObjectAlarm
    // that finds it already firing returns before that handler's D1 write has answered.
    const owed = await driveUntil(
      [key],
      () =>
        runInDurableObject(stub(key), (_instance, state) => {
          const entry = state.storage.sql
            .exec<{ attempts: number }>("SELECT attempts FROM outbox WHERE kind = 'search_index'")
            .toArray();
          const progress = state.storage.sql.exec("SELECT indexed_seq FROM search_progress").toArray();
          return entry.length === 1 && entry[0]?.attempts === 0 ? undefined : { entry, progress };
        }),
      "the chunk's first attempt",
    );
    // Its inserts found no row and wrote nothing: the chunk is owed again, not counted as written.
    expect(owed.progress).toEqual([]);
    expect(owed.entry).toEqual([{ attempts: expect.any(Number) }]);
    expect(owed.entry[0]?.attempts).toBeGreaterThan(0);
    // Once the row is written (any change of the session), the retried chunk indexes the message.
    const patched = await call("PATCH", sessionPath(key), { token: ADMIN, body: { label: `rowless ${u}` } });
    expect(patched.status, patched.text).toBe(200);
    await driveUntil([key], async () => ((await indexedIds(key)).length > 0 ? true : undefined), "the index");
    expect(await indexedIds(key)).toEqual(["r1"]);
  });
});
