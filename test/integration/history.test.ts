import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { PendingInputs } from "../../src/session/api/pending-inputs";
import { applySessionMigrations } from "../../src/session/schema/migrations";
import {
  ADMIN,
  AGENT_TOKENS,
  answerDeferred,
  call,
  createSession,
  createSpawned,
  driveUntil,
  exportJsonl,
  importMessages,
  jsonlBytes,
  msg,
  sendMessage,
  storedRuns,
  type ToolResults,
  tool,
  uid,
} from "../support";

const MAX_BYTES = 81_920;
const encoder = new TextEncoder();
const jsonBytes = (value: unknown) => encoder.encode(JSON.stringify(value)).byteLength;
const ids = (result: { messages: { id: string }[] }) => result.messages.map((message) => message.id);

/** A fresh session with these messages; the requester is the session itself. */
async function sessionWith(messages: unknown[]): Promise<string> {
  const key = `agent:main:hist-${uid()}`;
  await createSession({ agentId: "main", key });
  if (messages.length > 0) await importMessages(key, messages);
  return key;
}

const history = (key: string, args: Record<string, unknown> = {}) =>
  tool("sessions_history", key, { sessionKey: "current", ...args });

describe("sessions_history paging", () => {
  it("pages newest first with exact limit, offset, nextOffset, hasMore and totalMessages", async () => {
    const now = Date.now();
    // Every fourth message is a tool result: 12 messages, 9 of them shown without includeTools.
    const messages = Array.from({ length: 12 }, (_, i) =>
      i % 4 === 3
        ? msg(`m${i}`, "toolResult", `result ${i}`, now + i, { toolCallId: `c${i}` })
        : msg(`m${i}`, i % 2 ? "assistant" : "user", `text ${i}`, now + i),
    );
    const key = await sessionWith(messages);
    const chat = messages.filter((message) => message.role !== "toolResult");
    const chatIds = chat.map((message) => message.id as string);

    const all = await history(key);
    expect(all).toEqual({
      sessionKey: key,
      messages: chat,
      truncated: false,
      droppedMessages: false,
      contentTruncated: false,
      contentRedacted: false,
      bytes: jsonBytes(chat),
      hasMore: false,
      totalMessages: 9,
      pendingInputs: { items: [], total: 0 },
    });

    const first = await history(key, { limit: 4 });
    expect(ids(first)).toEqual(chatIds.slice(5, 9));
    expect(first).toMatchObject({
      hasMore: true,
      nextOffset: 4,
      totalMessages: 9,
      bytes: jsonBytes(first.messages),
    });
    const second = await history(key, { limit: 4, offset: first.nextOffset });
    expect(ids(second)).toEqual(chatIds.slice(1, 5));
    expect(second).toMatchObject({ hasMore: true, nextOffset: 8, totalMessages: 9 });
    const last = await history(key, { limit: 4, offset: second.nextOffset });
    expect(ids(last)).toEqual(chatIds.slice(0, 1));
    expect(last.hasMore).toBe(false);
    expect(last).not.toHaveProperty("nextOffset");

    for (const offset of [9, 100]) {
      const beyond = await history(key, { offset });
      expect(beyond).toMatchObject({ messages: [], hasMore: false, totalMessages: 9, bytes: 2 });
      expect(beyond).not.toHaveProperty("nextOffset");
    }

    const withTools = await history(key, { includeTools: true, limit: 5 });
    expect(ids(withTools)).toEqual(["m7", "m8", "m9", "m10", "m11"]);
    expect(withTools).toMatchObject({ hasMore: true, nextOffset: 5, totalMessages: 12 });
    expect(withTools.messages[0]).toEqual(messages[7]);
    const snake = await history(key, { include_tools: true, limit: 5, offset: 5 });
    expect(ids(snake)).toEqual(["m2", "m3", "m4", "m5", "m6"]);
    expect(snake).toMatchObject({ hasMore: true, nextOffset: 10, totalMessages: 12 });
    expect(ids(await history(key, { includeTools: false, limit: 20 }))).toEqual(chatIds);

    expect(ids(await history(key, { limit: 2.7 }))).toEqual(chatIds.slice(7));
    expect(ids(await history(key, { limit: 0 }))).toEqual(chatIds.slice(8));
    expect(ids(await history(key, { limit: 1, offset: -4 }))).toEqual(chatIds.slice(8));
  });

  it("returns the newest 200 by default and at most 1000", async () => {
    const base = Date.now() - 100_000;
    const messages = Array.from({ length: 1005 }, (_, i) => msg(`m${i}`, "user", "x", base + i));
    const key = await sessionWith(messages);
    const byDefault = await history(key);
    expect(byDefault.messages).toHaveLength(200);
    expect(byDefault.messages[0]?.id).toBe("m805");
    expect(byDefault).toMatchObject({
      hasMore: true,
      nextOffset: 200,
      totalMessages: 1005,
      truncated: false,
    });
    const most = await history(key, { limit: 5000 });
    expect(most.messages).toHaveLength(1000);
    expect(most.messages[0]?.id).toBe("m5");
    expect(most).toMatchObject({ hasMore: true, nextOffset: 1000, droppedMessages: false });
  });
});

describe("sessions_history made safe", () => {
  it("cleans, redacts and truncates every message, and says so in the flags; the export stays exact", async () => {
    const now = Date.now();
    const longText = "y".repeat(5000);
    const messages = [
      msg("a1", "assistant", "Before <think>secret</think> after", now),
      msg("u1", "user", "my key is sk-1234567890abcdef1234 ok", now + 1),
      msg(
        "a2",
        "assistant",
        [
          { type: "text", text: "<|assistant|>Here is the answer<|end|>" },
          { type: "thinking", thinking: "private", signature: "sig-abc" },
          {
            type: "toolCall",
            id: "t1",
            name: "login",
            arguments: { apiKey: "supersecretvalue123456", user: "bob" },
          },
          { type: "image", data: "aGVsbG8=", mimeType: "image/png" },
        ],
        now + 2,
      ),
      msg("u2", "user", longText, now + 3),
      msg("a3", "assistant", "plain", now + 4, {
        usage: { input: 1 },
        cost: { total: 1 },
        details: { x: 1 },
      }),
      msg("u3", "user", 'Prefix\n<tool_result>{"output":"hidden"}</tool_result>\nSuffix', now + 5),
      msg("a4", "assistant", 'Prefix\n<tool_result>{"output":"hidden"}</tool_result>\nSuffix', now + 6),
    ];
    const key = await sessionWith(messages);
    const result = await history(key);
    expect(result.messages).toEqual([
      { id: "a1", role: "assistant", content: "Before  after", timestamp: now },
      { id: "u1", role: "user", content: "my key is sk-123…1234 ok", timestamp: now + 1 },
      {
        id: "a2",
        role: "assistant",
        content: [
          { type: "text", text: "Here is the answer" },
          { type: "thinking", thinking: "private" },
          { type: "toolCall", id: "t1", name: "login", arguments: { apiKey: "supers…3456", user: "bob" } },
          { type: "image", mimeType: "image/png", omitted: true, bytes: 5 },
        ],
        timestamp: now + 2,
      },
      { id: "u2", role: "user", content: `${"y".repeat(4000)}\n…(truncated)…`, timestamp: now + 3 },
      { id: "a3", role: "assistant", content: "plain", timestamp: now + 4 },
      // Clean-up is for assistant text only; user text is only redacted.
      messages[5],
      { id: "a4", role: "assistant", content: "Prefix\n\nSuffix", timestamp: now + 6 },
    ]);
    expect(result).toMatchObject({
      truncated: true,
      droppedMessages: false,
      contentTruncated: true,
      contentRedacted: true,
      bytes: jsonBytes(result.messages),
    });
    // The operator export is the exact transcript, secrets and all.
    expect((await exportJsonl(key)).bytes).toEqual(jsonlBytes(messages));
    // Each message's safe copy is made when it is stored; rows stored before copies existed (every other
    // one here) or made under other rules (the rest) are made safe again when read, to the same page.
    const stored = await runInDurableObject(env.SESSION.getByName(key), (_instance, state) => {
      const copies = state.storage.sql
        .exec<{ safe_body: string | null }>("SELECT safe_body FROM message")
        .toArray();
      state.storage.sql.exec(
        "UPDATE message SET safe_body = NULL, safe_flags = NULL, safe_rules = NULL WHERE seq % 2 = 0",
      );
      state.storage.sql.exec(`UPDATE message SET safe_body = '"stale"', safe_rules = 0 WHERE seq % 2 = 1`);
      return copies.map((row) => row.safe_body ?? "").join("\n");
    });
    expect(stored).toContain("sk-123…1234");
    expect(stored).not.toContain("sk-1234567890abcdef1234");
    expect(stored).not.toContain("supersecretvalue123456");
    expect(await history(key)).toEqual(result);
  });

  it("sets each flag only for the change that happened on the page", async () => {
    const now = Date.now();
    const key = await sessionWith([
      msg("redacted", "user", "token=abcdefghijklmnopqrstuvwxyz", now),
      msg("cut", "user", "z".repeat(4001), now + 1),
      msg("usage", "assistant", "fine", now + 2, { usage: { input: 3 } }),
      msg("clean", "assistant", "Before <think>x</think> after", now + 3),
      msg("exactly4000", "user", "w".repeat(4000), now + 4),
    ]);
    const page = (offset: number) => history(key, { limit: 1, offset });
    const flags = (result: ToolResults["sessions_history"]) => [
      result.truncated,
      result.contentTruncated,
      result.contentRedacted,
    ];
    expect(flags(await page(0))).toEqual([false, false, false]);
    expect(flags(await page(1))).toEqual([false, false, false]);
    // Dropping usage cuts no content (issue 35): a page of whole texts is not truncated.
    expect(flags(await page(2))).toEqual([false, false, false]);
    expect(flags(await page(3))).toEqual([true, true, false]);
    const redacted = await page(4);
    expect(flags(redacted)).toEqual([false, false, true]);
    expect(redacted.messages[0]?.content).toBe("token=abcdef…wxyz");
  });

  it("reads copies made under rules 1 (usage counted as a cut) as migration 0021 left them", async () => {
    const now = Date.now();
    const key = await sessionWith([
      msg("usage", "assistant", "fine", now, { usage: { input: 3 } }),
      msg("cut", "user", "z".repeat(4001), now + 1),
    ]);
    // As rules 1 stored them: both flagged truncated; then migration 0021 runs again over them.
    await runInDurableObject(env.SESSION.getByName(key), (_instance, state) => {
      const db = state.storage.sql;
      db.exec("UPDATE message SET safe_flags = 1, safe_rules = 1");
      db.exec("DELETE FROM _migrations WHERE id = '0021_safe_rules_2'");
      applySessionMigrations(db);
      expect(db.exec("SELECT id, safe_flags, safe_rules FROM message ORDER BY seq").toArray()).toEqual([
        { id: "usage", safe_flags: 0, safe_rules: 2 },
        // A cut copy keeps its flag and its old rules: it is made safe again when read.
        { id: "cut", safe_flags: 1, safe_rules: 1 },
      ]);
    });
    const page = (offset: number) => history(key, { limit: 1, offset });
    expect(await page(1)).toMatchObject({ truncated: false, contentTruncated: false });
    expect(await page(0)).toMatchObject({ truncated: true, contentTruncated: true });
  });
});

describe("sessions_history byte cap", () => {
  it("drops the oldest messages to stay within 80 KiB and pages on without gaps", async () => {
    const now = Date.now();
    const messages = Array.from({ length: 30 }, (_, i) =>
      msg(`b${String(i).padStart(2, "0")}`, i % 2 ? "assistant" : "user", `${i}`.padEnd(3900, "."), now + i),
    );
    const key = await sessionWith(messages);
    // How many of the newest fit: 2 + Σ bytes + (n − 1) ≤ 81,920.
    const fitting = (newestFirst: typeof messages) => {
      let n = 0;
      let bytes = 2;
      for (const message of newestFirst) {
        const next = bytes + jsonBytes(message) + (n > 0 ? 1 : 0);
        if (next > MAX_BYTES) break;
        bytes = next;
        n++;
      }
      return n;
    };
    const expectedFirst = fitting([...messages].reverse());
    expect(expectedFirst).toBeGreaterThan(1);
    expect(expectedFirst).toBeLessThan(30);

    const first = await history(key);
    expect(first.messages).toEqual(messages.slice(30 - expectedFirst));
    expect(first).toMatchObject({
      truncated: true,
      droppedMessages: true,
      contentTruncated: false,
      contentRedacted: false,
      hasMore: true,
      nextOffset: expectedFirst,
      totalMessages: 30,
    });
    expect(first.bytes).toBe(jsonBytes(first.messages));
    expect(first.bytes).toBeLessThanOrEqual(MAX_BYTES);
    expect(first.bytes + jsonBytes(messages[29 - expectedFirst]) + 1).toBeGreaterThan(MAX_BYTES);

    const collected = [...first.messages];
    let next = first;
    while (next.hasMore) {
      next = await history(key, { offset: next.nextOffset });
      expect(next.bytes).toBeLessThanOrEqual(MAX_BYTES);
      collected.unshift(...next.messages);
    }
    expect(collected).toEqual(messages);
    expect(next.droppedMessages).toBe(false);
  });

  it("returns a placeholder when the newest message alone is over the cap", async () => {
    const now = Date.now();
    const huge = Array.from({ length: 25 }, (_, i) => ({ type: "text", text: `${i}`.padEnd(3900, "#") }));
    const key = await sessionWith([
      msg("older", "user", "still readable", now),
      msg("huge", "assistant", huge, now + 1, { runId: "r1" }),
    ]);
    const result = await history(key);
    expect(result.messages).toEqual([
      {
        id: "huge",
        role: "assistant",
        content: [{ type: "text", text: "[sessions_history omitted: message too large]" }],
        timestamp: now + 1,
      },
    ]);
    expect(result).toMatchObject({
      truncated: true,
      droppedMessages: true,
      hasMore: true,
      nextOffset: 1,
      totalMessages: 2,
      bytes: jsonBytes(result.messages),
    });
    expect(ids(await history(key, { offset: 1 }))).toEqual(["older"]);
  });
});

describe("sessions_history lookup", () => {
  it("finds a session by key, legacy key, sessionId, `current` and `main`", async () => {
    const u = uid();
    const requester = `agent:main:look-${u}`;
    await createSession({ agentId: "main", key: requester });
    await importMessages(requester, [msg("own", "user", "mine", Date.now())]);
    const child = await createSpawned({
      sessionKey: `agent:main:discord:group:look-${u}`,
      agentId: "main",
      spawnedBy: requester,
    });
    await importMessages(child.key, [msg("kid", "user", "hello", Date.now())]);
    const read = async (sessionKey: string) => {
      const result = await tool("sessions_history", requester, { sessionKey });
      return result.sessionKey === undefined ? result : { sessionKey: result.sessionKey, ids: ids(result) };
    };
    const childResult = { sessionKey: child.key, ids: ["kid"] };
    expect(await read(child.key)).toEqual(childResult);
    expect(await read(`discord:group:look-${u}`)).toEqual(childResult);
    expect(await read(`Agent:MAIN:Discord:Group:LOOK-${u}`)).toEqual(childResult);
    expect(await read(child.sessionId)).toEqual(childResult);
    expect(await read(child.sessionId.toUpperCase())).toEqual(childResult);
    expect(await read("current")).toEqual({ sessionKey: requester, ids: ["own"] });

    // `main` is the requester agent's main session: visible to itself, not to another tree.
    await createSession({ agentId: "main", key: "main" });
    await importMessages("agent:main:main", [msg("main-1", "user", "main chat", Date.now())]);
    const asMain = await call<ToolResults["sessions_history"]>("POST", "/v1/tools/sessions_history", {
      token: AGENT_TOKENS.main,
      body: { sessionKey: "main" },
    });
    expect(asMain.status).toBe(200);
    expect(asMain.json.sessionKey).toBe("agent:main:main");
    expect(ids(asMain.json)).toEqual(["main-1"]);
    expect(await read("main")).toMatchObject({ status: "forbidden" });
  });

  it("answers a miss with an error result that points to sessions_list", async () => {
    const u = uid();
    const requester = `agent:main:miss-${u}`;
    await createSession({ agentId: "main", key: requester });
    for (const reference of [
      `agent:main:nope-${u}`,
      `cron:nope-${u}`,
      crypto.randomUUID(),
      `random-slug-${u}`,
    ]) {
      const result = await tool("sessions_history", requester, { sessionKey: reference });
      expect(result, reference).toEqual({
        status: "error",
        error: `Session not found: ${reference}. Use the full session key from sessions_list.`,
      });
    }
  });

  it("answers /tools/invoke in OpenClaw's envelope", async () => {
    const key = await sessionWith([msg("e1", "user", "enveloped", Date.now())]);
    const invoked = await call("POST", "/tools/invoke", {
      token: ADMIN,
      body: { tool: "sessions_history", args: { sessionKey: "current" }, sessionKey: key },
    });
    expect(invoked.status).toBe(200);
    const details = await history(key);
    expect(invoked.json).toEqual({
      ok: true,
      result: { content: [{ type: "text", text: JSON.stringify(details) }], details },
    });
  });
});

describe("sessions_history pendingInputs", () => {
  /** The page with its pendingInputs (the client's page type does not name them yet). */
  const pageOf = async (key: string) =>
    (await history(key)) as ToolResults["sessions_history"] & { pendingInputs: PendingInputs };

  it("lists the accepted messages whose runs have not started, oldest first, until each starts", async () => {
    const key = `agent:hook-async:pending-${uid()}`;
    await createSession({ agentId: "hook-async", key });
    expect((await pageOf(key)).pendingInputs).toEqual({ items: [], total: 0 });
    const first = await sendMessage(key, "first");
    const running = (runId: string) => async () =>
      (await storedRuns(key)).some((run) => run.runId === runId && run.status === "running")
        ? true
        : undefined;
    await driveUntil([key], running(first), "the first run waiting for its agent");
    const second = await sendMessage(key, "second");
    const third = await sendMessage(key, "third");
    const runs = await storedRuns(key);
    const item = (runId: string) => ({
      runId,
      messageId: runs.find((run) => run.runId === runId)?.triggerMessageId,
      state: "queued",
      queuedAt: expect.any(Number),
    });
    const page = await pageOf(key);
    expect(page.pendingInputs).toEqual({ items: [item(second), item(third)], total: 2 });
    // Each is a message of the transcript already: on the page, not yet answered.
    expect(ids(page)).toEqual(expect.arrayContaining(page.pendingInputs.items.map((each) => each.messageId)));
    // The first run answered, the second starts: only the third waits.
    await answerDeferred(key, "one");
    await driveUntil([key], running(second), "the second run");
    expect((await pageOf(key)).pendingInputs).toEqual({ items: [item(third)], total: 1 });
  });
});
