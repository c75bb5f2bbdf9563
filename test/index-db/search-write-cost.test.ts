import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { deleteSearchRows } from "../../src/index-db/erasure";
import { pruneSearchRows, WALK_IDS } from "../../src/index-db/search-retention";
import {
  searchBacklogFlag,
  searchMessagesInsert,
  searchRowsForget,
  searchSessionPresent,
} from "../../src/index-db/search-write";
import type { SessionObject } from "../../src/session/session-object";
import { searchIndexChunk } from "../../src/session/transcript/search-index";
import { ADMIN, call, createSession, importMessages, msg, sessionPath, stub, uid } from "../support";
import { shardOf, shardsOf } from "../support/shards";

const written = (results: D1Result[]) => results.reduce((sum, result) => sum + result.meta.rows_written, 0);

/** The statements prepared through `db` (their SQL and bindings), for their query plans. */
function recording(db: D1Database): { db: D1Database; prepared: { sql: string; params: unknown[] }[] } {
  const prepared: { sql: string; params: unknown[] }[] = [];
  const recorded = new Proxy(db, {
    get(target, property) {
      if (property !== "prepare") return Reflect.get(target, property)?.bind?.(target);
      return (sql: string) => {
        // The statement itself (a batch takes only D1's own), its `bind` noting the bindings.
        const statement = target.prepare(sql);
        const entry = { sql, params: [] as unknown[] };
        prepared.push(entry);
        const bind = statement.bind.bind(statement);
        statement.bind = (...params: unknown[]) => {
          entry.params = params;
          return bind(...params);
        };
        return statement;
      };
    },
  });
  return { db: recorded, prepared };
}

describe("a search chunk's D1 writes (meta.rows_written, the query plans)", () => {
  it("costs 7 rows for two messages: one insert statement, no index on the key nor time, the flag unchanged", async () => {
    const key = `agent:main:search-write-${uid()}`;
    await createSession({ agentId: "main", key });
    const now = Date.now() - 60_000;
    await importMessages(key, [
      msg("w1", "user", "how is the weather", now),
      msg("w2", "assistant", "sunny, and warm for the season", now + 1),
    ]);
    const db = shardOf(key);
    const { json } = await call<{ sessionId: string }>("GET", sessionPath(key), { token: ADMIN });
    // The import's pass indexed both: taken out again, and the object's progress forgotten, so the
    // chunk is built once more from the first message, as the pass built it.
    await db.prepare("DELETE FROM search_message WHERE session_id = ?").bind(json.sessionId).run();
    const statements = await runInDurableObject(stub(key), (_: SessionObject, state) => {
      state.storage.sql.exec("DELETE FROM search_progress");
      return searchIndexChunk(state.storage.sql, db).statements;
    });
    // The insert, the first chunk's backlog flag (already 0: written as nothing), the presence check.
    expect(statements).toHaveLength(3);
    const results = await db.batch(statements);
    // Per message its row, its (session_id, message_id) entry and its FTS row; the one statement's
    // sqlite_sequence update once.
    expect(written(results)).toBe(7);
    const rows = await db
      .prepare("SELECT message_id FROM search_message WHERE session_id = ? ORDER BY id")
      .bind(json.sessionId)
      .all<{ message_id: string }>();
    expect(rows.results.map((row) => row.message_id)).toEqual(["w1", "w2"]);
    // The flag writes when it changes, and only then.
    const flag = (behind: boolean) => searchBacklogFlag(db, key, json.sessionId, behind).run();
    expect((await flag(true)).meta.rows_written).toBeGreaterThan(0);
    expect((await flag(true)).meta.rows_written).toBe(0);
    expect((await flag(false)).meta.rows_written).toBeGreaterThan(0);
  });

  it("puts messages in one insert up to its size, a larger one in its own", () => {
    const db = shardOf("agent:main:sizes");
    const session = { sessionKey: "agent:main:sizes", sessionId: "sizes", scope: "" };
    const row = (id: string, chars: number) => ({
      messageId: id,
      role: "user",
      timestamp: 1,
      text: "x".repeat(chars),
    });
    expect(searchMessagesInsert(db, session, []).length).toBe(0);
    expect(searchMessagesInsert(db, session, [row("a", 10), row("b", 10), row("c", 10)]).length).toBe(1);
    const large = [row("a", 10), row("b", 60_000), row("c", 60_000), row("d", 200_000), row("e", 10)];
    // a and b share one; c would take it past the size: its own, as d's and then e's.
    expect(searchMessagesInsert(db, session, large).length).toBe(4);
  });

  it("reads search_message through an index in every query that writes it: no table scan", async () => {
    const key = `agent:main:search-plan-${uid()}`;
    const { db, prepared } = recording(shardOf(key));
    const session = { sessionKey: key, sessionId: `id-${key}`, scope: "" };
    searchMessagesInsert(db, session, [{ messageId: "m", role: "user", timestamp: 1, text: "t" }]);
    searchRowsForget(db, session.sessionId, ["m"]);
    searchSessionPresent(db, key, session.sessionId);
    // An agent of its own, its cutoff before every row: the walk deletes nothing of the shared storage.
    const retentions = [{ retentionMs: 1, kinds: ["main", "group"] }];
    await pruneSearchRows(db, { agentId: `plan-${uid()}`, retentions, now: 1, limit: 10 });
    await deleteSearchRows(shardsOf(db), key, ["m"]);
    // The triggers of session_index on search_message (a deleted session, a new generation of a key).
    const triggers = await shardOf(key)
      .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'session_index'")
      .all<{ name: string; sql: string }>();
    for (const { sql } of triggers.results) {
      const body = /BEGIN\s+(DELETE FROM search_message[^;]*);/i.exec(sql)?.[1];
      if (body) prepared.push({ sql: body.replace(/old\.session_id/g, "?"), params: ["id"] });
    }
    expect(
      prepared.filter(({ sql }) => /^\s*DELETE FROM search_message WHERE session_id = \?$/.test(sql)),
    ).toHaveLength(2);
    // The retention walk's statements (src/index-db/search-retention.ts): the table's ends, the cursor,
    // each range's edge and delete, the cursor saved.
    const walks = prepared.filter(({ sql }) => /search_retention_walk|MIN\(id\)|m\.id >= \?/.test(sql));
    expect(walks.length).toBeGreaterThanOrEqual(5);
    const deletes = walks.filter(({ sql }) => /^DELETE/.test(sql.trim()));
    expect(deletes.length).toBeGreaterThan(0);
    for (const { params } of deletes)
      expect(Number(params[1]) - Number(params[0])).toBeLessThanOrEqual(WALK_IDS);
    for (const { sql, params } of prepared) {
      const plan = await shardOf(key)
        .prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .bind(...params)
        .all<{ detail: string }>();
      const details = plan.results.map((row) => row.detail);
      // The only scans: json_each's rows (a chunk's messages, a list of ids), a SELECT's constant row.
      const scans = details.filter((detail) => /^SCAN /.test(detail));
      for (const scan of scans) expect(scan, sql).toMatch(/VIRTUAL TABLE INDEX|^SCAN CONSTANT ROW$/);
      expect(details.join("\n"), sql).not.toMatch(/search_message_session|search_message_time/);
      // The retention walk reads search_message only by a range of ids (WALK_IDS at most), or an end of
      // the primary key (MIN, MAX: one row each), never through an index of time (0019 dropped it).
      if (walks.some((walk) => walk.sql === sql))
        for (const detail of details.filter((line) => /search_message|SEARCH m /.test(line)))
          expect(detail, sql).toMatch(
            /INTEGER PRIMARY KEY \(rowid(>\? AND rowid<\?|>\?|=\?)\)$|^SEARCH search_message$/,
          );
    }
  });
});
