import { describe, expect, it } from "vitest";
import { withInterSessionHeader } from "../../src/messaging/inter-session";
import { subagentTaskMessage } from "../../src/subagents/task-message";
import {
  ADMIN,
  type ApiError,
  call,
  callTool,
  createSession,
  createSpawned,
  importMessages,
  keysOf,
  msg,
  type SessionRow,
  tool,
  UUID,
  uid,
} from "../support";
import { seedIndexRows } from "./fixtures";

const MINUTE = 60_000;

/** A requester key and a helper that creates sessions it spawned (visible to it under `tree`). */
function tree(agentId = "main") {
  const requester = `agent:${agentId}:list-${uid()}`;
  const child = (rest: string, init: Record<string, unknown> = {}) =>
    createSpawned({ sessionKey: `agent:${agentId}:${rest}`, agentId, spawnedBy: requester, ...init });
  return { requester, child };
}

const list = (requester: string, args: Record<string, unknown> = {}) =>
  tool("sessions_list", requester, args);

describe("sessions_list rows and order", () => {
  it("lists the requester's tree newest first; updatedAt is the newest imported message's time", async () => {
    const now = Date.now();
    const u = uid();
    const { requester, child } = tree();
    await createSession({ agentId: "main", key: requester });
    const group = await child(`discord:group:dev-${u}`, { label: "dev", displayName: "Dev chat" });
    const cron = await child(`cron:nightly-${u}`);
    const fresh = await child(`api:fresh-${u}`);
    // Imported out of order: the newest message, not the last one, sets updatedAt.
    await importMessages(group.key, [
      msg("g2", "assistant", "later", now - 10 * MINUTE),
      msg("g1", "user", "earlier", now - 30 * MINUTE),
    ]);
    await importMessages(cron.key, [msg("c1", "user", "run", now - 20 * MINUTE)]);
    await importMessages(requester, [msg("r1", "user", "hi", now - 5 * MINUTE)]);
    // An older message imported later never moves updatedAt back.
    await importMessages(group.key, [msg("g0", "user", "much earlier", now - 60 * MINUTE)]);

    const result = await list(requester);
    expect(keysOf(result)).toEqual([fresh.key, requester, group.key, cron.key]);
    expect(result.count).toBe(4);
    expect(result.nextCursor).toBeUndefined();
    const [, own, groupRow, cronRow] = result.sessions;
    expect(own?.updatedAt).toBe(now - 5 * MINUTE);
    expect(groupRow).toEqual({
      key: `agent:main:discord:group:dev-${u}`,
      agentId: "main",
      // created, then three messages: its event log's last seq (SPEC §13).
      stateVersion: 4,
      kind: "group",
      channel: "discord",
      sessionId: expect.stringMatching(UUID),
      label: "dev",
      displayName: "Dev chat",
      createdAt: group.createdAt,
      updatedAt: now - 10 * MINUTE,
      model: "scripted/echo",
      contextTokens: 128_000,
      spawnedBy: requester,
      parentSessionKey: requester,
      archived: false,
      pinned: false,
    });
    expect(cronRow).toMatchObject({ kind: "cron", channel: "internal", updatedAt: now - 20 * MINUTE });
  });

  it("never lists cron run keys", async () => {
    const u = uid();
    const { requester, child } = tree();
    const job = await child(`cron:job-${u}`);
    await child(`cron:job-${u}:run:${crypto.randomUUID()}`);
    expect(keysOf(await list(requester))).toEqual([job.key]);
  });
});

describe("sessions_list filters", () => {
  it("kinds: filters by kind, drops unknown values, and no known value left means no filter", async () => {
    const u = uid();
    // agent:research:main is the one `main`-kind key this file uses.
    const requester = "agent:research:main";
    await createSession({ agentId: "research", key: "main" });
    const child = (rest: string) =>
      createSpawned({ sessionKey: `agent:research:${rest}`, agentId: "research", spawnedBy: requester });
    const group = await child(`slack:channel:c-${u}`);
    const cron = await child(`cron:c-${u}`);
    const hook = await child(`hook:${crypto.randomUUID()}`);
    const node = await child(`node-${u}`);
    const other = await child(`api:${u}`);
    const kindOf = async (kinds: unknown) => {
      const result = await list(requester, { kinds });
      return result.sessions.map((row) => `${row.kind}:${row.key}`).sort();
    };
    const all = [
      `main:${requester}`,
      `group:${group.key}`,
      `cron:${cron.key}`,
      `hook:${hook.key}`,
      `node:${node.key}`,
      `other:${other.key}`,
    ].sort();
    expect(await kindOf(["main"])).toEqual([`main:${requester}`]);
    expect(await kindOf(["group", " CRON ", "bogus"])).toEqual([`cron:${cron.key}`, `group:${group.key}`]);
    expect(await kindOf(["hook", "node"])).toEqual([`hook:${hook.key}`, `node:${node.key}`]);
    expect(await kindOf(["group", "group", "Group"])).toEqual([`group:${group.key}`]);
    expect(await kindOf(["main", "group", "cron", "hook", "node", "other"])).toEqual(all);
    expect(await kindOf(["other"])).toEqual([`other:${other.key}`]);
    expect(await kindOf(["bogus", "subagent"])).toEqual(all);
    expect(await kindOf([])).toEqual(all);
  });

  it("limit: default 50, clamped to 200, floored, at least 1", async () => {
    const { requester } = tree();
    const base = Date.now() - 1000 * MINUTE;
    await seedIndexRows(
      Array.from({ length: 205 }, (_, i) => ({
        sessionKey: `${requester}-c${String(i).padStart(3, "0")}`,
        agentId: "main",
        updatedAt: base + i,
        spawnedBy: requester,
      })),
    );
    const byDefault = await list(requester);
    expect(byDefault.count).toBe(50);
    expect(byDefault.sessions[0]?.key).toBe(`${requester}-c204`);
    expect(byDefault.nextCursor).toEqual(expect.any(String));
    const clamped = await list(requester, { limit: 1000 });
    expect(clamped.count).toBe(200);
    expect(clamped.sessions.at(-1)?.key).toBe(`${requester}-c005`);
    expect(clamped.nextCursor).toEqual(expect.any(String));
    expect((await list(requester, { limit: 2.9 })).count).toBe(2);
    expect((await list(requester, { limit: 0 })).count).toBe(1);
    expect((await list(requester, { limit: -3 })).count).toBe(1);
  });

  it("activeMinutes: only sessions whose newest message is recent enough", async () => {
    const now = Date.now();
    const u = uid();
    const { requester, child } = tree();
    const recent = await child(`api:recent-${u}`);
    const hourOld = await child(`api:hour-${u}`);
    const dayOld = await child(`api:day-${u}`);
    const justCreated = await child(`api:new-${u}`);
    await importMessages(recent.key, [msg("a", "user", "x", now - 10 * MINUTE)]);
    await importMessages(hourOld.key, [msg("a", "user", "x", now - 90 * MINUTE)]);
    await importMessages(dayOld.key, [msg("a", "user", "x", now - 1440 * MINUTE - MINUTE)]);
    expect(keysOf(await list(requester, { activeMinutes: 1 }))).toEqual([justCreated.key]);
    expect(keysOf(await list(requester, { activeMinutes: 30 }))).toEqual([justCreated.key, recent.key]);
    expect(keysOf(await list(requester, { active_minutes: 120.7 }))).toEqual([
      justCreated.key,
      recent.key,
      hourOld.key,
    ]);
    expect(keysOf(await list(requester, { activeMinutes: 1440 }))).not.toContain(dayOld.key);
    expect((await list(requester, { activeMinutes: 2000 })).count).toBe(4);
  });

  it("label: exact match only", async () => {
    const u = uid();
    const { requester, child } = tree();
    const exact = await child(`api:a-${u}`, { label: "alpha" });
    await child(`api:b-${u}`, { label: "Alpha" });
    await child(`api:c-${u}`, { label: "alpha beta" });
    await child(`api:d-${u}`);
    expect(keysOf(await list(requester, { label: "alpha" }))).toEqual([exact.key]);
    expect(keysOf(await list(requester, { label: "  alpha " }))).toEqual([exact.key]);
    expect((await list(requester, { label: "alp" })).count).toBe(0);
  });

  it("agentId: normalized; a tree holds only the requester's own agent", async () => {
    const u = uid();
    const { requester, child } = tree();
    const own = await child(`api:own-${u}`);
    // Spawned by the requester but of another agent: cross-agent, so not visible under `tree`.
    await createSpawned({
      sessionKey: `agent:research:api:x-${u}`,
      agentId: "research",
      spawnedBy: requester,
    });
    expect(keysOf(await list(requester))).toEqual([own.key]);
    expect(keysOf(await list(requester, { agentId: "main" }))).toEqual([own.key]);
    expect(keysOf(await list(requester, { agent_id: " MAIN " }))).toEqual([own.key]);
    expect((await list(requester, { agentId: "research" })).count).toBe(0);
  });

  it("search: case-insensitive over display name, label, subject, sessionId and key; short needles too", async () => {
    const u = uid();
    const { requester, child } = tree();
    const named = await child(`api:n-${u}`, { displayName: "Quarterly Planning" });
    const labelled = await child(`api:l-${u}`, { label: "Ops-Review" });
    const subject = await child(`api:s-${u}`, { subject: "Budget zz talk" });
    const keyed = await child(`discord:group:needle-${u}`);
    const byId = await child(`api:i-${u}`);
    const search = async (needle: string) => keysOf(await list(requester, { search: needle }));
    expect(await search("planning")).toEqual([named.key]);
    expect(await search("ARTERLY PLAN")).toEqual([named.key]);
    expect(await search("ops-REV")).toEqual([labelled.key]);
    expect(await search("budget")).toEqual([subject.key]);
    expect(await search(`NEEDLE-${u}`)).toEqual([keyed.key]);
    expect(await search(byId.sessionId)).toEqual([byId.key]);
    expect(await search(byId.sessionId.slice(0, 8).toUpperCase())).toEqual([byId.key]);
    // Under three characters the trigram index cannot answer; a substring test does.
    expect(await search("ZZ")).toEqual([subject.key]);
    expect(await search("q")).toEqual([named.key]);
    expect(await search('"quoted"')).toEqual([]);
    expect(await search("nothing-like-this")).toEqual([]);
  });
});

describe("sessions_list derived titles and previews", () => {
  it("derivedTitle: display name, else subject, else the first user message cut at 60, else id and date", async () => {
    const now = Date.now();
    const u = uid();
    const { requester, child } = tree();
    const cases: [string, Record<string, unknown>, unknown[], string | undefined][] = [
      ["display", { displayName: "Named", subject: "Subject" }, [msg("m", "user", "hello", now)], "Named"],
      ["subject", { subject: "Just a subject" }, [msg("m", "user", "hello", now)], "Just a subject"],
      [
        "word-cut",
        {},
        [
          msg("a", "assistant", "assistant text does not count", now - 2),
          msg(
            "u",
            "user",
            "  Please   summarise\nthe quarterly report for the finance team before Friday morning",
            now - 1,
          ),
          msg("v", "user", "a later user message does not count", now),
        ],
        "Please summarise the quarterly report for the finance team…",
      ],
      [
        "hard-cut",
        {},
        [msg("u", "user", `Short words then ${"x".repeat(60)}`, now)],
        `Short words then ${"x".repeat(43)}…`,
      ],
      // The last space at exactly 60% (index 36) is not past it, so the cut is at 60 chars.
      [
        "at-60pct",
        {},
        [msg("u", "user", `${"a".repeat(36)} ${"b".repeat(40)}`, now)],
        `${"a".repeat(36)} ${"b".repeat(23)}…`,
      ],
      [
        "past-60pct",
        {},
        [msg("u", "user", `${"a".repeat(37)} ${"b".repeat(40)}`, now)],
        `${"a".repeat(37)}…`,
      ],
      ["exactly-60", {}, [msg("u", "user", "c".repeat(60), now)], "c".repeat(60)],
      [
        "blocks",
        {},
        [
          msg(
            "u",
            "user",
            [
              { type: "text", text: "first block" },
              { type: "image", data: "AAAA" },
              { type: "text", text: "second" },
            ],
            now,
          ),
        ],
        "first block second",
      ],
      ["no-user", {}, [msg("a", "assistant", "only the assistant spoke", now)], undefined],
      ["empty", {}, [], undefined],
    ];
    const created = new Map<string, SessionRow>();
    for (const [name, init, messages] of cases) {
      const row = await child(`api:${name}-${u}`, init);
      created.set(row.key, row);
      if (messages.length > 0) await importMessages(row.key, messages);
    }
    const result = await list(requester, { includeDerivedTitles: true });
    const titles = new Map(result.sessions.map((row) => [row.key, row.derivedTitle]));
    for (const [name, , , expected] of cases) {
      const key = `agent:main:api:${name}-${u}`;
      const row = created.get(key);
      if (!row) throw new Error(`${key} was not created`);
      const fallback = `${row.sessionId.slice(0, 8)} (${new Date(Number(row.createdAt)).toISOString().slice(0, 10)})`;
      expect(titles.get(key), name).toBe(expected ?? fallback);
    }
    const without = await list(requester);
    expect(without.sessions.some((row) => "derivedTitle" in row)).toBe(false);
  });

  it("titles and previews read past our headers: a routed message's and a sub-agent task's", async () => {
    const now = Date.now();
    const u = uid();
    const { requester, child } = tree();
    const routed = await child(`api:routed-${u}`);
    const tasked = await child(`api:tasked-${u}`);
    const source = { sessionKey: requester, channel: "internal", tool: "sessions_send" };
    await importMessages(routed.key, [
      msg("r1", "user", withInterSessionHeader("Check the deploy status please", source), now, {
        provenance: { kind: "inter_session", sourceSessionKey: requester, sourceTool: "sessions_send" },
      }),
    ]);
    const task = subagentTaskMessage("Summarise the quarterly logs");
    await importMessages(tasked.key, [
      msg("t1", "user", task, now, { provenance: { kind: "subagent_task", sourceSessionKey: requester } }),
    ]);
    // A task stored before the rules moved to the system prompt: its rules, a blank line, the task.
    const older = await child(`api:older-${u}`);
    const oldTask = `[Sub-agent task] You are a sub-agent at depth 1 of 1, role leaf, spawned by ${requester}.\nWhen you finish, your final answer is announced to the requester automatically.\n\nTally the old invoices`;
    await importMessages(older.key, [
      msg("o1", "user", oldTask, now, { provenance: { kind: "subagent_task", sourceSessionKey: requester } }),
    ]);
    const result = await list(requester, { includeDerivedTitles: true, includeLastMessage: true });
    const rows = new Map(result.sessions.map((row) => [row.key, row]));
    expect(rows.get(routed.key)).toMatchObject({
      derivedTitle: "Check the deploy status please",
      lastMessagePreview: "Check the deploy status please",
    });
    expect(rows.get(tasked.key)).toMatchObject({
      derivedTitle: "Summarise the quarterly logs",
      lastMessagePreview: "Summarise the quarterly logs",
    });
    expect(rows.get(older.key)).toMatchObject({
      derivedTitle: "Tally the old invoices",
      lastMessagePreview: "Tally the old invoices",
    });
    // The same text with no provenance is someone's own words: kept as they are.
    const typed = await child(`api:typed-${u}`);
    await importMessages(typed.key, [msg("x", "user", "[Sub-agent task] mine\n\nrest", now)]);
    const own = await list(requester, { includeDerivedTitles: true });
    expect(own.sessions.find((row) => row.key === typed.key)?.derivedTitle).toBe(
      "[Sub-agent task] mine rest",
    );
  });

  it("lastMessagePreview: the newest user/assistant message with text, made safe", async () => {
    const now = Date.now();
    const u = uid();
    const { requester, child } = tree();
    const chat = await child(`api:p-${u}`);
    const quiet = await child(`api:q-${u}`);
    const long = await child(`api:long-${u}`);
    await importMessages(chat.key, [
      msg("1", "user", "what is the key?", now - 5),
      msg("2", "assistant", "The key is sk-1234567890abcdef1234 <think>secret plan</think> ok", now - 4),
      msg("3", "toolResult", "tool output is never a preview", now - 3, { toolCallId: "t1" }),
      msg("4", "assistant", "<think>only reasoning</think>", now - 2),
      msg("5", "assistant", [{ type: "toolCall", id: "t2", name: "x", arguments: {} }], now - 1),
    ]);
    await importMessages(long.key, [msg("1", "user", `${"word ".repeat(60)}end`, now)]);
    const result = await list(requester, { includeLastMessage: true });
    const previews = new Map(result.sessions.map((row) => [row.key, row.lastMessagePreview]));
    expect(previews.get(chat.key)).toBe("The key is sk-123…1234 ok");
    expect(previews.has(quiet.key)).toBe(true);
    expect(previews.get(quiet.key)).toBeUndefined();
    expect(previews.get(long.key)).toBe(`${"word ".repeat(39)}word…`);
    // A later import of only tool messages leaves the preview alone.
    await importMessages(chat.key, [msg("6", "tool", "more tool output", now)]);
    const again = await list(requester, { includeLastMessage: true });
    expect(again.sessions.find((row) => row.key === chat.key)?.lastMessagePreview).toBe(
      "The key is sk-123…1234 ok",
    );
    expect((await list(requester)).sessions.some((row) => "lastMessagePreview" in row)).toBe(false);
  });

  it("messageLimit: the last N messages of each row, tool messages removed, made safe; 0–20", async () => {
    const now = Date.now();
    const u = uid();
    const { requester, child } = tree();
    const chat = await child(`api:m-${u}`);
    await importMessages(chat.key, [
      msg("m1", "user", "first", now - 6),
      msg("m2", "assistant", "Before <think>hidden</think> after", now - 5),
      msg("m3", "toolResult", "tool result", now - 4, { toolCallId: "x" }),
      msg("m4", "tool", "legacy tool", now - 3),
      msg("m5", "user", "token ghp_abcdefghijklmnopqrstuvwxyz0123456789", now - 2),
      msg("m6", "assistant", "done", now - 1, {
        // Only its numbers are kept: a string there is nothing a row passes on unredacted.
        usage: { input: 1, output: 2, note: "sk-1234567890abcdef1234", cost: { total: 0.5, unit: "usd" } },
        cost: 0.5,
      }),
    ]);
    // Each row's `messages` are transcript messages, made safe.
    const rows = async (messageLimit: number) =>
      (await list(requester, { messageLimit })).sessions.find((row) => row.key === chat.key) as
        | (Omit<SessionRow, "messages"> & { messages?: { id: string }[] })
        | undefined;
    expect((await rows(3))?.messages).toEqual([
      { id: "m2", role: "assistant", content: "Before  after", timestamp: now - 5 },
      { id: "m5", role: "user", content: "token ghp_ab…6789", timestamp: now - 2 },
      // An assistant message keeps its usage (as OpenClaw's rows do); cost and details stay out.
      {
        id: "m6",
        role: "assistant",
        content: "done",
        timestamp: now - 1,
        usage: { input: 1, output: 2, cost: { total: 0.5 } },
      },
    ]);
    expect((await rows(25))?.messages?.map((m) => m.id)).toEqual(["m1", "m2", "m5", "m6"]);
    expect((await rows(1.9))?.messages?.map((m) => m.id)).toEqual(["m6"]);
    expect(await rows(0)).not.toHaveProperty("messages");
    expect(await rows(-1)).not.toHaveProperty("messages");
  });
});

describe("sessions_list cursor paging", () => {
  it("pages through every row once, in order, ties broken by the latest indexed first", async () => {
    const now = Date.now();
    const u = uid();
    const { requester, child } = tree();
    // Two pairs share a timestamp, so the order among them comes from when each was indexed.
    const offsets = [1, 2, 3, 3, 5, 5, 7, 8];
    const created: { key: string; updatedAt: number; order: number }[] = [];
    for (const [i, offset] of offsets.entries()) {
      const row = await child(`api:page-${u}-${i}`);
      await importMessages(row.key, [msg("m", "user", "x", now - offset * MINUTE)]);
      created.push({ key: row.key, updatedAt: now - offset * MINUTE, order: i });
    }
    const expected = created
      .sort((a, b) => b.updatedAt - a.updatedAt || b.order - a.order)
      .map((row) => row.key);
    expect(keysOf(await list(requester))).toEqual(expected);

    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = await list(requester, { limit: 3, ...(cursor ? { cursor } : {}) });
      pages.push(keysOf(page));
      cursor = page.nextCursor;
    } while (cursor && pages.length < 10);
    expect(pages.map((page) => page.length)).toEqual([3, 3, 2]);
    expect(pages.flat()).toEqual(expected);

    // Filters hold across pages too.
    const firstGroup = await list(requester, { limit: 2, activeMinutes: 6 });
    expect(keysOf(firstGroup)).toEqual(expected.slice(0, 2));
    const secondGroup = await list(requester, { limit: 2, activeMinutes: 6, cursor: firstGroup.nextCursor });
    expect(keysOf(secondGroup)).toEqual(expected.slice(2, 4));
    const lastGroup = await list(requester, { limit: 2, activeMinutes: 6, cursor: secondGroup.nextCursor });
    expect(keysOf(lastGroup)).toEqual(expected.slice(4, 6));
    expect(lastGroup.nextCursor).toBeUndefined();
  });

  it("an exactly full last page has no nextCursor", async () => {
    const u = uid();
    const { requester, child } = tree();
    await child(`api:a-${u}`);
    await child(`api:b-${u}`);
    const page = await list(requester, { limit: 2 });
    expect(page.count).toBe(2);
    expect(page).not.toHaveProperty("nextCursor");
  });

  it("an invalid cursor is an input error", async () => {
    const { requester } = tree();
    const notJson = btoa("not json").replaceAll("=", "");
    const wrongShape = btoa(JSON.stringify({ u: "x" })).replaceAll("=", "");
    for (const cursor of ["%%%", notJson, wrongShape]) {
      const response = await callTool<ApiError>("sessions_list", requester, { cursor });
      expect(response.status).toBe(400);
      expect(response.json.error.code).toBe("bad_request");
      expect(response.json.error.message).toMatch(/^cursor: invalid cursor/);
    }
    const invoked = await call("POST", "/tools/invoke", {
      token: ADMIN,
      body: { tool: "sessions_list", args: { cursor: "%%%" }, sessionKey: requester },
    });
    expect(invoked.status).toBe(400);
    expect(invoked.json).toEqual({
      ok: false,
      error: { type: "tool_error", message: expect.stringMatching(/cursor/) },
    });
  });
});

describe("sessions_list row fields and archive filter (SPEC §17)", () => {
  it("rows carry contextTokens, pinned, archived and stateVersion; archived: false | true | 'all', includeArchived = 'all'", async () => {
    const u = uid();
    const { requester, child } = tree("research");
    await createSession({ agentId: "research", key: requester });
    const plain = await child(`api:plain-${u}`);
    const pinned = await child(`api:pinned-${u}`);
    const archived = await child(`api:archived-${u}`);
    expect(
      await tool("sessions", requester, { action: "patch", sessionKey: pinned.key, pinned: true }),
    ).toEqual({ status: "updated", sessionKey: pinned.key, updated: ["pinned"] });
    const archiving = { action: "patch", sessionKey: archived.key, archived: true };
    expect(
      await tool("sessions", requester, { ...archiving, expectedSessionId: archived.sessionId }),
    ).toEqual({
      status: "updated",
      sessionKey: archived.key,
      updated: ["archived"],
    });
    const listed = await list(requester);
    expect(keysOf(listed)).toEqual([pinned.key, plain.key, requester]);
    const row = (key: string) => listed.sessions.find((each) => each.key === key);
    // The agent's contextWindow (research: 32000); every other agent lists the default, 128000 (a scripted model is not a known one).
    // The event log (SPEC §13): `created`, and for the pinned one `patched` too.
    expect(row(plain.key)).toMatchObject({ contextTokens: 32_000, stateVersion: 1 });
    // Every row carries both flags, false included (as OpenClaw's rows do).
    expect(row(plain.key)).toMatchObject({ archived: false, pinned: false });
    expect(row(requester)).toMatchObject({ archived: false, pinned: false });
    expect(row(pinned.key)).toMatchObject({
      contextTokens: 32_000,
      archived: false,
      pinned: true,
      stateVersion: 2,
    });

    const onlyArchived = await list(requester, { archived: true });
    expect(keysOf(onlyArchived)).toEqual([archived.key]);
    expect(onlyArchived.sessions[0]).toMatchObject({ archived: true, pinned: false, contextTokens: 32_000 });
    expect(keysOf(await list(requester, { archived: false }))).toEqual(keysOf(listed));
    const everything = keysOf(await list(requester, { archived: "all" }));
    expect(everything.sort()).toEqual([archived.key, pinned.key, plain.key, requester].sort());
    expect(keysOf(await list(requester, { include_archived: true })).sort()).toEqual(everything);
    expect((await callTool<ApiError>("sessions_list", requester, { archived: "some" })).status).toBe(400);

    // Unarchived: listed again, `archived: false`; unpinned with the same tool.
    await tool("sessions", requester, {
      action: "patch",
      sessionKey: archived.key,
      archived: false,
      expectedSessionId: archived.sessionId,
    });
    expect(
      await tool("sessions", requester, { action: "patch", sessionKey: pinned.key, pinned: false }),
    ).toEqual({ status: "updated", sessionKey: pinned.key, updated: ["pinned"] });
    const restored = await list(requester);
    expect(keysOf(restored)).toContain(archived.key);
    expect(restored.sessions.find((each) => each.key === archived.key)).toMatchObject({ archived: false });
    expect(restored.sessions.find((each) => each.key === pinned.key)).toMatchObject({ pinned: false });
    expect((await list(requester, { archived: true })).count).toBe(0);
  });
});

describe("sessions_list offset paging", () => {
  it("hasMore, limitApplied, offset and nextOffset; offset with cursor, below 0 or past 10000 is an input error", async () => {
    const { requester } = tree();
    const base = Date.now() - 2000 * MINUTE;
    await seedIndexRows(
      Array.from({ length: 7 }, (_, i) => ({
        sessionKey: `${requester}-o${i}`,
        agentId: "main",
        updatedAt: base + i,
        spawnedBy: requester,
      })),
    );
    const newestFirst = Array.from({ length: 7 }, (_, i) => `${requester}-o${6 - i}`);

    const first = await list(requester, { limit: 3 });
    expect(keysOf(first)).toEqual(newestFirst.slice(0, 3));
    expect(first).toMatchObject({ count: 3, hasMore: true, limitApplied: 3, nextOffset: 3 });
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await list(requester, { limit: 3, offset: first.nextOffset });
    expect(keysOf(second)).toEqual(newestFirst.slice(3, 6));
    expect(second).toMatchObject({ hasMore: true, nextOffset: 6 });
    const last = await list(requester, { limit: 3, offset: 6.8 });
    expect(keysOf(last)).toEqual(newestFirst.slice(6));
    expect(last).toMatchObject({ count: 1, hasMore: false, limitApplied: 3 });
    expect(last).not.toHaveProperty("nextOffset");
    expect(last).not.toHaveProperty("nextCursor");
    expect((await list(requester, { offset: 7 })).sessions).toEqual([]);

    // A cursor page has more too, but no nextOffset: an offset counts from the newest session.
    const byCursor = await list(requester, { limit: 2, cursor: first.nextCursor });
    expect(keysOf(byCursor)).toEqual(newestFirst.slice(3, 5));
    expect(byCursor).toMatchObject({ hasMore: true, limitApplied: 2 });
    expect(byCursor).not.toHaveProperty("nextOffset");
    expect(await list(requester, { limit: 1000 })).toMatchObject({
      count: 7,
      hasMore: false,
      limitApplied: 200,
    });

    for (const [args, message] of [
      [{ offset: 3, cursor: first.nextCursor }, "offset cannot be combined with cursor"],
      [{ offset: -1 }, "offset: Too small: expected number to be >=0"],
      [{ offset: 10_001 }, "offset: Too big: expected number to be <=10000"],
    ] as const) {
      const response = await callTool<ApiError>("sessions_list", requester, args);
      expect(response.status).toBe(400);
      expect(response.json.error).toEqual({ code: "bad_request", message });
    }
  });
});
