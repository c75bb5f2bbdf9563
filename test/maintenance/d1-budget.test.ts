import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { pruneSearchRows } from "../../src/index-db/search-retention";
import { indexShards, keyShard } from "../../src/index-db/shards";
import { dailyBatches } from "../../src/maintenance/daily";
import { maintenanceReport } from "../../src/maintenance/report";
import { d1CallsPerEnforce, ROW_BATCH, runMaintenance } from "../../src/maintenance/run-maintenance";
import {
  agentIn,
  countingDatabase,
  countingShards,
  createSession,
  idleSession,
  uid,
  workerConfig,
  workerConfigWith,
} from "../support";

// D1 takes 1,000 queries per Worker invocation, and the daily pass runs its batches in one (the agent
// object's alarm). On storage of its own (FRESH_STATE): the pass deletes every idle session of the agent.

const DAY = 86_400_000;

/** `env` with each index shard counting its D1 round trips: a statement run alone, or a batch. */
function countingEnv(): { env: Env; calls: () => number } {
  let calls = 0;
  const counted = countingShards(env, () => {
    calls += 1;
  });
  return { env: counted, calls: () => calls };
}

describe("the maintenance pass within D1's queries per invocation", () => {
  it("makes no more D1 round trips in an enforce call than d1CallsPerEnforce says, with every part at work", async () => {
    const deleted = await idleSession("research", 40);
    await idleSession("research", 15);
    const db = keyShard(indexShards(env), deleted);
    const holder = `agent:research:budget-${uid()}`;
    const { sessionId } = (await createSession({ agentId: "research", key: holder })) as {
      sessionId: string;
    };
    // A batch of search rows past their retention: the call deletes a full batch, then merges the FTS
    // segments.
    const old = Date.now() - 20 * DAY;
    await db
      .prepare(
        `WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < ?)
         INSERT INTO search_message (session_key, session_id, message_id, role, timestamp, text, scope)
         SELECT ?, ?, 'm-' || x, 'user', ?, 'words', 's' FROM n`,
      )
      .bind(ROW_BATCH, holder, sessionId, old)
      .run();
    // Each kind a retention of its own: the walk keeps a cursor per retention.
    const config = workerConfigWith((config) => {
      config.session.maintenance = { pruneAfter: "30d", archiveAfter: "10d" };
      agentIn(config, "research").maintenance = {
        searchRetention: "10d",
        byKind: {
          main: { searchRetention: "11d" },
          group: { searchRetention: "12d" },
          cron: { searchRetention: "13d" },
          hook: { searchRetention: "14d" },
          node: { searchRetention: "15d" },
        },
      };
    });

    // The first call's walk spends its ranges on the kinds of no rows; the second reaches `other`'s.
    const shards = indexShards(env).length;
    const first = countingEnv();
    const one = await runMaintenance(first.env, "research", "enforce", { config });
    expect(one.enforced).toMatchObject({ deleted: 1, archived: 1, searchRows: 0 });
    expect(first.calls()).toBeLessThanOrEqual(d1CallsPerEnforce(shards));
    const second = countingEnv();
    const two = await runMaintenance(second.env, "research", "enforce", { config });
    expect(two.enforced?.searchRows).toBe(ROW_BATCH);
    expect(two.done).toBe(false);
    expect(second.calls()).toBeLessThanOrEqual(d1CallsPerEnforce(shards));
  });

  it("walks nothing in a shard with no search rows: one round trip, done", async () => {
    const empty = [];
    for (const db of indexShards(env)) {
      const rows = await db.prepare("SELECT COUNT(*) AS n FROM search_message").first<{ n: number }>();
      if (rows?.n === 0) empty.push(db);
    }
    // This file's sessions are one agent's, in one shard: the others have no search rows.
    expect(empty.length).toBeGreaterThan(0);
    for (const db of empty) {
      let calls = 0;
      const counted = countingDatabase(db, () => {
        calls += 1;
      });
      const retentions = [
        { retentionMs: DAY, kinds: ["main"] },
        { retentionMs: 2 * DAY, kinds: ["other"] },
      ];
      const pruned = await pruneSearchRows(counted, {
        agentId: "research",
        retentions,
        now: Date.now(),
        limit: 10,
      });
      expect(pruned).toEqual({ deleted: 0, done: true });
      expect(calls).toBe(1);
    }
  });

  it("reads only the shards' sizes in the report's own invocation: each agent's part runs in its object", async () => {
    const session = await idleSession("research", 40);
    const config = workerConfig();
    const shards = indexShards(env).length;
    const dry = countingEnv();
    const report = await maintenanceReport(dry.env, config, "dry-run");
    expect(report.agents.map((agent) => agent.agentId)).toEqual(config.agents.list.map((agent) => agent.id));
    expect(report.agents.find((agent) => agent.agentId === "research")?.wouldDelete).toBeGreaterThan(0);
    expect(report.shards).toHaveLength(shards);
    expect(dry.calls()).toBe(shards);
    const enforced = countingEnv();
    const applied = await maintenanceReport(enforced.env, config, "enforce");
    expect(applied.agents.find((agent) => agent.agentId === "research")?.enforced?.deleted).toBeGreaterThan(
      0,
    );
    expect(enforced.calls()).toBe(shards);
    const gone = await keyShard(indexShards(env), session)
      .prepare("SELECT COUNT(*) AS n FROM session_index WHERE session_key = ?")
      .bind(session)
      .first<{ n: number }>();
    expect(gone?.n).toBe(0);
  });

  it("takes as many batches a day as fit in 900 D1 queries, never more than 20", () => {
    for (const shards of [1, 2, 3, 4, 8, 16]) {
      expect(dailyBatches(shards) * d1CallsPerEnforce(shards)).toBeLessThanOrEqual(900);
      expect(dailyBatches(shards)).toBeLessThanOrEqual(20);
    }
    expect(dailyBatches(1)).toBe(20);
    expect(dailyBatches(4)).toBeLessThan(20);
  });
});
