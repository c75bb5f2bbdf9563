import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sessionIndexUpsert } from "../../src/index-db/write";
import type { IndexRow } from "../../src/session/api";
import type { SessionObject } from "../../src/session/session-object";
import { landedIndexRow } from "../../src/session/store/index-landed";
import { ADMIN, call, createSession, sessionPath, stub, uid, waitRun } from "../support";
import { shardOf } from "../support/shards";

const row = (key: string, changes: IndexRow = {}): IndexRow => ({
  session_key: key,
  session_id: `id-${key}`,
  agent_id: "main",
  kind: "other",
  channel: "internal",
  label: "before",
  created_at: 1,
  updated_at: 1000,
  search_text: key,
  status: null,
  spawned_by: null,
  version: 1,
  ...changes,
});

describe("the session index row: only what changed is written (SPEC §24)", () => {
  it("sets only the columns that differ from the landed row, and nothing when none does", async () => {
    const key = `agent:main:row-write-${uid()}`;
    const db = shardOf(key);
    const first = row(key);
    await sessionIndexUpsert(db, first).run();
    expect(sessionIndexUpsert(db, { ...first, version: 2 }, first)).toBeUndefined();
    // A column the update does not set keeps what the index holds (moved here behind its back to tell).
    await db.prepare("UPDATE session_index SET kind = 'moved' WHERE session_key = ?").bind(key).run();
    const relabelled = row(key, { label: "after", version: 3 });
    await sessionIndexUpsert(db, relabelled, first)?.run();
    expect(
      await db
        .prepare("SELECT label, kind, version FROM session_index WHERE session_key = ?")
        .bind(key)
        .first(),
    ).toEqual({ label: "after", kind: "moved", version: 3 });
  });

  it("moves a row in one write: re-slotted by the upsert, its list search entry following it", async () => {
    const [a, b] = [`agent:main:row-move-a-${uid()}`, `agent:main:row-move-b-${uid()}`];
    const db = shardOf(a);
    const rows = [row(a, { label: null }), row(b, { label: null, session_key: b, session_id: `id-${b}` })];
    for (const first of rows) await sessionIndexUpsert(db, first).run();
    const at = 1_000_000 + Math.floor(Math.random() * 1_000_000);
    const moved = [];
    for (const first of rows) {
      const next = { ...first, updated_at: at, version: 2 };
      const result = await sessionIndexUpsert(db, next, first)?.run();
      moved.push(result?.meta.rows_written);
    }
    // A listed chat's row (kind `other`, no label, no spawner): the row and its entry in the two list orders
    // every listed session keeps (`recency`, its agent's); its list search entry stays (migrations/0016,
    // 0018, 0020).
    expect(moved).toEqual([3, 3]);
    const slots = await db
      .prepare(
        "SELECT session_key, recency - updated_at * 1048576 AS slot FROM session_index WHERE updated_at = ?",
      )
      .bind(at)
      .all<{ session_key: string; slot: number }>();
    // Both in the same millisecond: the one moved last takes the next slot (it lists first).
    expect(slots.results.filter((r) => r.session_key === a || r.session_key === b)).toEqual(
      expect.arrayContaining([
        { session_key: a, slot: expect.any(Number) },
        { session_key: b, slot: expect.any(Number) },
      ]),
    );
    const slotOf = (key: string) => slots.results.find((r) => r.session_key === key)?.slot ?? -1;
    expect(slotOf(b)).toBe(slotOf(a) + 1);
    const found = await db
      .prepare(
        `SELECT session_index.session_key FROM session_search
           JOIN session_index ON session_index.rowid = session_search.rowid
         WHERE session_search MATCH ?`,
      )
      .bind(`"${b.slice(-12)}"`)
      .all<{ session_key: string }>();
    expect(found.results.map((r) => r.session_key)).toEqual([b]);
  });

  it("keeps, after a turn, the row that landed: the same as the index's", async () => {
    const key = `agent:relay:row-landed-${uid()}`;
    await createSession({ agentId: "relay", key });
    const sent = await call<{ runId: string }>("POST", sessionPath(key, "/messages"), {
      token: ADMIN,
      body: { text: "hello" },
    });
    await waitRun(sent.json.runId);
    const landed = await runInDurableObject(stub(key), (_: SessionObject, state) =>
      landedIndexRow(state.storage.sql),
    );
    const indexed = await shardOf(key)
      .prepare("SELECT * FROM session_index WHERE session_key = ?")
      .bind(key)
      .first<IndexRow>();
    expect(landed).toBeDefined();
    for (const [column, value] of Object.entries(landed ?? {}))
      expect([column, indexed?.[column]]).toEqual([column, value]);
  });
});
