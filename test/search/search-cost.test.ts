import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { visibleCondition } from "../../src/index-db/list";
import { type SearchQuery, searchMessages, searchStatement } from "../../src/index-db/search";
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

/** Messages with no query word, spread over the seeded sessions, until the index holds `total` of them. */
async function growIndexTo(prefix: string, agentId: string, total: number): Promise<void> {
  const have = await env.DB.prepare("SELECT COUNT(*) AS n FROM search_message").first<{ n: number }>();
  const statements: D1PreparedStatement[] = [];
  for (let from = have?.n ?? 0; from < total; from += 1000) {
    statements.push(
      env.DB.prepare(
        `WITH RECURSIVE n(x) AS (SELECT ? UNION ALL SELECT x + 1 FROM n WHERE x < ?)
         INSERT INTO search_message (session_key, session_id, message_id, role, timestamp, text)
         SELECT 'agent:${agentId}:${prefix}-' || (x % ${SESSIONS}), '${prefix}-' || (x % ${SESSIONS}),
           'filler-' || x, CASE x % 2 WHEN 0 THEN 'user' ELSE 'assistant' END, x,
           'ordinary words about the weather number ' || x || ' and some more text to index'
         FROM n`,
      ).bind(from, Math.min(total, from + 1000) - 1),
    );
  }
  if (statements.length > 0) await env.DB.batch(statements);
}

/** Hits for the query word: `visible` in session 0 (the requester), `hidden` in session 1 (not its child). */
async function seedHits(prefix: string, agentId: string, word: string, visible: number, hidden: number) {
  const insert = env.DB.prepare(
    `INSERT INTO search_message (session_key, session_id, message_id, role, timestamp, text)
     VALUES (?, ?, ?, 'user', ?, ?)`,
  );
  await env.DB.batch([
    ...Array.from({ length: visible }, (_, i) =>
      insert.bind(`agent:${agentId}:${prefix}-0`, `${prefix}-0`, `${word}-v${i}`, i, `${word} visible ${i}`),
    ),
    ...Array.from({ length: hidden }, (_, i) =>
      insert.bind(
        `agent:${agentId}:${prefix}-1`,
        `${prefix}-1`,
        `${word}-h${i}`,
        i,
        `${word} ${word} hidden`,
      ),
    ),
  ]);
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
    const visible = visibleCondition(tree);
    if (!visible) throw new Error("tree scope sees its own session");
    const everything = visibleCondition({ type: "all" });
    if (!everything) throw new Error("the all scope sees everything");
    for (const [variant, scope] of [
      [query("word"), visible],
      [{ ...query("word"), sessionKey: requester, role: "user" as const }, visible],
      [query("word", { type: "all" }), everything],
    ] as const) {
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
      expect(details.filter((detail) => detail.startsWith("SCAN"))).toHaveLength(1);
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
    // Each of the 15 matches: its message row, and its session row through a unique index (two reads);
    // plus the high-water mark and the backlog flag.
    expect(rowsRead[0]).toBeLessThanOrEqual(15 * 3 + 4);
    expect(rowsRead[1]).toBe(rowsRead[0]);
  });
});
