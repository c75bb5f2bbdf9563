import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  type SearchQuery,
  searchMessages,
  searchStatement,
  searchVisibility,
} from "../../src/index-db/search";
import { scopeColumn } from "../../src/index-db/search-scope";
import type { VisibleScope } from "../../src/policy/visibility";
import { uid } from "../support";

const SESSIONS = 40;

/** Index rows of `SESSIONS` sessions of one agent, straight into D1; session i has sessionId `<prefix>-i`. */
async function seedSessions(prefix: string, agentId: string): Promise<void> {
  const insert = env.DB.prepare(
    `INSERT INTO session_index (session_key, session_id, agent_id, kind, channel, created_at, updated_at,
       list_state, search_text, version)
     VALUES (?, ?, ?, 'other', 'internal', ?, ?, 0, ?, 1)`,
  );
  const now = Date.now();
  await env.DB.batch(
    Array.from({ length: SESSIONS }, (_, i) =>
      insert.bind(`agent:${agentId}:${prefix}-${i}`, `${prefix}-${i}`, agentId, now + i, now + i, prefix),
    ),
  );
}

/** Session i's scope column, as its index pass writes it (none of the seeded sessions was spawned). */
const scopeOf = (prefix: string, agentId: string, i: number) =>
  scopeColumn({ sessionKey: `agent:${agentId}:${prefix}-${i}`, agentId });

/** Messages with no query word, spread over the seeded sessions, until the index holds `total` of them. */
async function growIndexTo(prefix: string, agentId: string, total: number): Promise<void> {
  const scopes = JSON.stringify(Array.from({ length: SESSIONS }, (_, i) => scopeOf(prefix, agentId, i)));
  const have = await env.DB.prepare("SELECT COUNT(*) AS n FROM search_message").first<{ n: number }>();
  const statements: D1PreparedStatement[] = [];
  for (let from = have?.n ?? 0; from < total; from += 1000) {
    statements.push(
      env.DB.prepare(
        `WITH RECURSIVE n(x) AS (SELECT ? UNION ALL SELECT x + 1 FROM n WHERE x < ?)
         INSERT INTO search_message (session_key, session_id, message_id, role, timestamp, text, scope)
         SELECT 'agent:${agentId}:${prefix}-' || (x % ${SESSIONS}), '${prefix}-' || (x % ${SESSIONS}),
           'filler-' || x, CASE x % 2 WHEN 0 THEN 'user' ELSE 'assistant' END, x,
           'ordinary words about the weather number ' || x || ' and some more text to index',
           json_extract(?, '$[' || CAST(x % ${SESSIONS} AS INTEGER) || ']')
         FROM n`,
      ).bind(from, Math.min(total, from + 1000) - 1, scopes),
    );
  }
  if (statements.length > 0) await env.DB.batch(statements);
}

/**
 * Hits for the query word: `visible` in session 0 (the requester), `hidden` in session 1 (not its child),
 * the hidden ones `hiddenFrom` on (their message ids number on across calls).
 */
async function seedHits(
  prefix: string,
  agentId: string,
  word: string,
  visible: number,
  hidden: number,
  hiddenFrom = 0,
) {
  const insert = env.DB.prepare(
    `INSERT INTO search_message (session_key, session_id, message_id, role, timestamp, text, scope)
     VALUES (?, ?, ?, 'user', ?, ?, ?)`,
  );
  const statements = [
    ...Array.from({ length: visible }, (_, i) =>
      insert.bind(
        `agent:${agentId}:${prefix}-0`,
        `${prefix}-0`,
        `${word}-v${i}`,
        i,
        `${word} visible ${i}`,
        scopeOf(prefix, agentId, 0),
      ),
    ),
    ...Array.from({ length: hidden }, (_, n) => {
      const i = hiddenFrom + n;
      return insert.bind(
        `agent:${agentId}:${prefix}-1`,
        `${prefix}-1`,
        `${word}-h${i}`,
        i,
        `${word} ${word} hidden`,
        scopeOf(prefix, agentId, 1),
      );
    }),
  ];
  for (let at = 0; at < statements.length; at += 500) await env.DB.batch(statements.slice(at, at + 500));
}

describe("sessions_search query cost (D1 meta.rows_read and the query plan)", () => {
  const u = uid();
  const prefix = `cost${u}`;
  const agentId = `cost${u}`;
  const requester = `agent:${agentId}:${prefix}-0`;
  const tree: VisibleScope = { type: "tree", sessionKey: requester, agentId };
  const query = (word: string, scope: VisibleScope = tree): SearchQuery => ({
    scope,
    match: `"${word}"`,
    includeTools: false,
    limit: 5,
  });

  it("uses the FTS index, then each hit's message row by rowid and its session row by a unique key: no scan", async () => {
    await seedSessions(prefix, agentId);
    const agents: VisibleScope = { type: "agents", agentIds: [agentId, "other"] };
    for (const variant of [
      query("word"),
      query("word", { type: "self", sessionKey: requester, agentId }),
      { ...query("word"), sessionKey: requester, role: "user" as const },
      query("word", agents),
      query("word", { type: "all" }),
    ]) {
      const scope = searchVisibility(variant.scope);
      if (!scope) throw new Error("each of these scopes sees something");
      const statement = searchStatement(variant, scope);
      const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${statement.sql}`)
        .bind(...statement.params)
        .all<{ detail: string }>();
      const details = plan.results.map((row) => row.detail);
      expect(details[0]).toMatch(/^SCAN search_fts VIRTUAL TABLE INDEX \d+:M/);
      expect(details).toContain("SEARCH m USING INTEGER PRIMARY KEY (rowid=?)");
      expect(details).toContainEqual(
        expect.stringMatching(
          /^SEARCH session_index USING INDEX sqlite_autoindex_session_index_\d \((session_key|session_id)=\?\)/,
        ),
      );
      // The one scan is the FTS index; an agents scope's JSON list is read once, into a list subquery.
      expect(details.filter((detail) => /^SCAN (?!json_each )/.test(detail))).toHaveLength(1);
    }
  });

  it("reads a number of rows bounded by the hits, flat from 1,000 to 20,000 indexed messages", async () => {
    const rowsRead: number[] = [];
    for (const [size, word] of [
      [1_000, `small${u}`],
      [20_000, `large${u}`],
    ] as const) {
      await growIndexTo(prefix, agentId, size);
      // 3 visible hits and 12 hidden ones (which rank better): the page holds the 3, nothing hidden.
      await seedHits(prefix, agentId, word, 3, 12);
      const page = await searchMessages(env.DB, query(word));
      expect(page.rows.map((row) => row.message_id).sort()).toEqual([0, 1, 2].map((i) => `${word}-v${i}`));
      expect(page.hasMore).toBe(false);
      // Every session visible: the other session's 12 hits (better ranked) come first.
      const all = await searchMessages(env.DB, { ...query(word, { type: "all" }), limit: 25 });
      expect(all.rows).toHaveLength(15);
      expect(all.rows[0]?.message_id).toMatch(/-h\d+$/);
      rowsRead.push(page.rowsRead);
    }
    // Each of the 3 visible matches: its message row, and its session row through a unique index (two
    // reads); plus the high-water mark and the backlog flag. The hidden session's 12 are not even read.
    expect(rowsRead[0]).toBeLessThanOrEqual(3 * 3 + 4);
    expect(rowsRead[1]).toBe(rowsRead[0]);
  });

  it("ranks only the matches in the caller's scope: hidden sessions' matches of a common word cost nothing", async () => {
    const word = `common${u}`;
    await seedHits(prefix, agentId, word, 3, 10);
    const self: VisibleScope = { type: "self", sessionKey: requester, agentId };
    const searches = [
      query(word),
      query(word, self),
      { ...query(word, { type: "all" }), sessionKey: requester },
      query(word, { type: "agents", agentIds: ["someone-else", "nobody"] }),
    ];
    const before = await Promise.all(searches.map((search) => searchMessages(env.DB, search)));
    // 5,000 more matches in the hidden session.
    await seedHits(prefix, agentId, word, 0, 5_000, 10);
    const after = await Promise.all(searches.map((search) => searchMessages(env.DB, search)));
    for (const [i, page] of after.entries()) {
      const rows = page.rows.map((row) => row.message_id).sort();
      expect(rows, `search ${i}`).toEqual(i === 3 ? [] : [0, 1, 2].map((n) => `${word}-v${n}`));
      // Not one row more: the hidden matches never leave FTS5 (no message row, no session row, no bm25).
      expect(page.rowsRead, `search ${i}`).toBe(before[i]?.rowsRead);
    }
  });

  it("binds an agents scope as one parameter: more reachable agents than D1 binds parameters", async () => {
    const word = `many${u}`;
    await seedHits(prefix, agentId, word, 2, 0);
    const agentIds = [...Array.from({ length: 150 }, (_, i) => `agent-${i}`), agentId];
    const page = await searchMessages(env.DB, query(word, { type: "agents", agentIds }));
    expect(page.rows.map((row) => row.message_id).sort()).toEqual([`${word}-v0`, `${word}-v1`]);
  });

  it("never reuses a message id, even after the newest rows were deleted (a cursor's high-water mark)", async () => {
    const insert = (id: string) =>
      env.DB.prepare(
        `INSERT INTO search_message (session_key, session_id, message_id, role, timestamp, text, scope)
         VALUES ('agent:x:reuse', 'reuse', ?, 'user', 0, 'reuse', '') RETURNING id`,
      )
        .bind(id)
        .first<{ id: number }>();
    const first = await insert(`first${u}`);
    await env.DB.prepare("DELETE FROM search_message WHERE id = ?").bind(first?.id).run();
    const second = await insert(`second${u}`);
    expect(second?.id).toBeGreaterThan(first?.id ?? Number.POSITIVE_INFINITY);
  });
});
