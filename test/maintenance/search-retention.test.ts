import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { WALK_IDS, WALK_RANGES } from "../../src/index-db/search-retention";
import { indexShards, keyShard } from "../../src/index-db/shards";
import { ROW_BATCH, runMaintenance } from "../../src/maintenance/run-maintenance";
import { agentIn, createSession, importMessages, msg, uid, workerConfigWith } from "../support";

// SPEC §23 searchRetention, walked by id (migrations/0019): on storage of its own (FRESH_STATE), so the
// ids and the rows of the shard are this file's. `research` and `ops` share a shard (src/index-db/shards.ts).

const DAY = 86_400_000;
const MINUTE = 60_000;

/** The test configuration with each agent's searchRetention; sessions are never idle enough to prune. */
const configWith = (retention: Record<string, string>) =>
  workerConfigWith((config) => {
    config.session.maintenance = { pruneAfter: "365d" };
    for (const [agentId, searchRetention] of Object.entries(retention))
      agentIn(config, agentId).maintenance = { searchRetention };
  });

async function sessionOf(agentId: string): Promise<{ key: string; sessionId: string; db: D1Database }> {
  const key = `agent:${agentId}:search-retention-${uid()}`;
  const { sessionId } = (await createSession({ agentId, key })) as { sessionId: string };
  return { key, sessionId, db: keyShard(indexShards(env), key) };
}

/** Search rows as an index pass writes them, in this order (so in id order): `[session, timestamp, id?]`. */
async function indexRows(db: D1Database, rows: [{ key: string; sessionId: string }, number, number?][]) {
  const json = rows.map(([session, at, id]) => [id ?? null, session.key, session.sessionId, uid(), at]);
  await db
    .prepare(
      `INSERT INTO search_message (id, session_key, session_id, message_id, role, timestamp, text, scope)
       SELECT m.value ->> 0, m.value ->> 1, m.value ->> 2, m.value ->> 3, 'user', m.value ->> 4, 'words', 's'
       FROM json_each(?) AS m`,
    )
    .bind(JSON.stringify(json))
    .run();
}

/** The id AUTOINCREMENT gives the next row (ids of deleted rows are never given again). */
const nextId = async (db: D1Database) =>
  ((
    await db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'search_message'").first<{ seq: number }>()
  )?.seq ?? 0) + 1;

const countOf = async (db: D1Database, sessionId: string) =>
  (
    await db
      .prepare("SELECT COUNT(*) AS n FROM search_message WHERE session_id = ?")
      .bind(sessionId)
      .first<{ n: number }>()
  )?.n;

describe("searchRetention, walked by id (SPEC §23, migrations/0019)", () => {
  it("takes the shorter-kept agent's old rows batch by batch and leaves the longer-kept one's", async () => {
    const short = await sessionOf("research");
    const long = await sessionOf("ops");
    expect(short.db).toBe(long.db);
    const now = Date.now();
    const from = now - 20 * DAY;
    // 700 minutes of both agents' messages 20 days ago, interleaved, then one of each now.
    const old = Array.from({ length: 700 }, (_, n) => n).flatMap((n) => [
      [short, from + n * MINUTE] as [typeof short, number],
      [long, from + n * MINUTE] as [typeof long, number],
    ]);
    await indexRows(short.db, [...old, [short, now], [long, now]]);
    const config = configWith({ research: "10d", ops: "30d" });
    const pass = () => runMaintenance(env, "research", "enforce", { config, now });

    const first = await pass();
    expect(first.enforced?.searchRows).toBe(ROW_BATCH);
    expect(first.done).toBe(false);
    const second = await pass();
    expect(second.enforced?.searchRows).toBe(700 - ROW_BATCH);
    expect(second.done).toBe(true);
    expect(await countOf(short.db, short.sessionId)).toBe(1);
    expect(await countOf(long.db, long.sessionId)).toBe(701);

    // The walk stopped at the first row of now (its edge) and resumes there: nothing more to take.
    const edge = await short.db
      .prepare("SELECT MIN(id) AS id FROM search_message WHERE timestamp = ?")
      .bind(now)
      .first<{ id: number }>();
    const cursor = await short.db
      .prepare("SELECT next_id FROM search_retention_walk WHERE agent_id = 'research'")
      .first<{ next_id: number }>();
    expect(cursor?.next_id).toBe(edge?.id);
    expect((await pass()).enforced?.searchRows).toBe(0);
    // ops keeps 30 days: its rows of 20 days ago stay, and go once they are older than that.
    const ops = configWith({ research: "10d", ops: "30d" });
    expect((await runMaintenance(env, "ops", "enforce", { config: ops, now })).enforced?.searchRows).toBe(0);
    const later = await runMaintenance(env, "ops", "enforce", { config: ops, now: now + 11 * DAY });
    expect(later.enforced?.searchRows).toBe(ROW_BATCH);
  });

  it("walks a bounded range of ids per statement, a few per call, resuming where the last call stopped", async () => {
    const short = await sessionOf("research");
    // A hundred days back: the rows of the test before are from the future then (never the walk's edge).
    const now = Date.now() - 100 * DAY;
    const top = await nextId(short.db);
    // Rows a range and more apart (ids of deleted rows between them): each takes a range of its own.
    const spread = Array.from({ length: 2 * WALK_RANGES + 1 }, (_, n) => n);
    await indexRows(
      short.db,
      spread.map(
        (n) => [short, now - 20 * DAY + n, top + n * (WALK_IDS + 1)] as [typeof short, number, number],
      ),
    );
    const config = configWith({ research: "10d" });
    const pass = () => runMaintenance(env, "research", "enforce", { config, now });
    const calls = [await pass(), await pass(), await pass()];
    expect(calls.map((call) => call.enforced?.searchRows)).toEqual([WALK_RANGES, WALK_RANGES, 1]);
    expect(calls.map((call) => call.done)).toEqual([false, false, true]);
    expect(await countOf(short.db, short.sessionId)).toBe(0);
  });

  it("keeps a late-indexed old row (an import's backlog) until the walk's edge passes it", async () => {
    const short = await sessionOf("research");
    const now = Date.now() - 200 * DAY;
    // A message of now, then, indexed after it and a range of ids further (ids of deleted rows between
    // them), one of 20 days ago. (Within the range where the walk stops, an old row goes at once.)
    const top = await nextId(short.db);
    await indexRows(short.db, [
      [short, now, top],
      [short, now - 20 * DAY, top + WALK_IDS],
    ]);
    const config = configWith({ research: "10d" });
    expect((await runMaintenance(env, "research", "enforce", { config, now })).enforced?.searchRows).toBe(0);
    expect(await countOf(short.db, short.sessionId)).toBe(2);
    // Ten days on, the row of now is past the cutoff too: the walk reaches the late one and takes both.
    const later = await runMaintenance(env, "research", "enforce", { config, now: now + 10 * DAY + 1 });
    expect(later.enforced?.searchRows).toBe(2);
    expect(await countOf(short.db, short.sessionId)).toBe(0);
  });

  it("never indexes a message already past its session's searchRetention (an import's old ones)", async () => {
    // Agent `retained` keeps search rows 30 days (test/support/test-config.ts).
    const kept = await sessionOf("retained");
    const now = Date.now();
    await importMessages(kept.key, [
      msg("long-ago", "user", "words of long ago", now - 40 * DAY),
      msg("today", "user", "words of today", now),
    ]);
    const rows = await kept.db
      .prepare("SELECT message_id FROM search_message WHERE session_id = ?")
      .bind(kept.sessionId)
      .all<{ message_id: string }>();
    expect(rows.results.map((row) => row.message_id)).toEqual(["today"]);
  });
});
