import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { MaintenanceConfig } from "../../src/config/maintenance";
import { indexShards, keyShard } from "../../src/index-db/shards";
import { runMaintenance } from "../../src/maintenance/run-maintenance";
import {
  ADMIN,
  AGENT_TOKENS,
  call,
  getSession,
  idleSession,
  session,
  stub,
  uid,
  workerConfigWith,
} from "../support";

// Runs on storage of its own (vitest.config.ts FRESH_STATE): enforcing deletes every idle session of
// the agent, which in the shared storage would be other files' sessions too.

const DAY = 86_400_000;

interface Report {
  mode: string;
  agents: {
    agentId: string;
    sessions: number;
    messages: number;
    objectBytes: number;
    wouldArchive: number;
    wouldDelete: number;
    largest: { sessionKey: string; bytes: number }[];
    enforced?: Record<string, number>;
    done?: boolean;
  }[];
  shards: { shard: string; bytes: number }[];
  done?: boolean;
}

const maintenance = (mode: unknown, token = ADMIN) =>
  call<Report>("POST", "/v1/maintenance", { token, body: { mode } });
const mainOf = (report: Report) => report.agents.find((agent) => agent.agentId === "main");

/** The Worker's test configuration with `session.maintenance` set. */
const configWith = (maintenance: MaintenanceConfig) =>
  workerConfigWith((config) => {
    config.session.maintenance = maintenance;
  });

describe("POST /v1/maintenance (SPEC §23)", () => {
  it("is the operator's: an agent token is 403, a bad mode a 400 naming it", async () => {
    expect((await maintenance("dry-run", AGENT_TOKENS.main)).status).toBe(403);
    const bad = await maintenance("now");
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/mode/);
  });

  it("dry-run reports each agent's storage and each shard's size, and changes nothing", async () => {
    const old = await idleSession("main", 40);
    const fresh = await idleSession("main", 0);
    const report = await maintenance("dry-run");
    expect(report.status, report.text).toBe(200);
    expect(report.json.mode).toBe("dry-run");
    const main = mainOf(report.json);
    expect(main?.sessions).toBeGreaterThanOrEqual(2);
    expect(main?.messages).toBeGreaterThanOrEqual(4);
    expect(main?.objectBytes).toBeGreaterThan(0);
    expect(main?.wouldDelete).toBeGreaterThanOrEqual(1);
    expect(main?.largest.length).toBeGreaterThan(0);
    expect(main?.largest[0]?.bytes).toBeGreaterThan(0);
    expect(report.json.shards.map((shard) => shard.shard)).toEqual(["DB", "DB_1", "DB_2"]);
    for (const shard of report.json.shards) expect(shard.bytes).toBeGreaterThan(0);
    expect(report.json.done).toBeUndefined();
    expect((await getSession(old)).status).toBe(200);
    expect((await getSession(fresh)).status).toBe(200);
  });

  it("enforce deletes idle sessions in batches until done, never one with a run in flight", async () => {
    const old = await idleSession("main", 40);
    const fresh = await idleSession("main", 0);
    const busy = await idleSession("main", 40);
    await runInDurableObject(stub(busy), (_instance, state) => {
      state.storage.sql.exec(
        "INSERT INTO run (run_id, status, timeout_ms, created_at, attempts) VALUES ('queued-run', 'queued', 60000, ?, 0)",
        Date.now() - 40 * DAY,
      );
    });
    let report: Report | undefined;
    for (let call = 0; call < 20 && report?.done !== true; call += 1) {
      const answer = await maintenance("enforce");
      expect(answer.status, answer.text).toBe(200);
      report = answer.json;
    }
    expect(report?.done).toBe(true);
    expect((await getSession(old)).status).toBe(404);
    expect((await getSession(fresh)).status).toBe(200);
    expect((await getSession(busy)).status).toBe(200);
    expect(mainOf(report as Report)?.enforced?.skipped).toBeGreaterThanOrEqual(1);
  });

  it("a retire re-checks in the object: a session busy again since the index said idle stays", async () => {
    const key = await idleSession("main", 40);
    const { sessionId } = (await getSession<{ sessionId: string }>(key)).json;
    const answer = await session(key).retire({
      action: "delete",
      idleBefore: Date.now() - 50 * DAY,
      expectedSessionId: sessionId,
    });
    expect(answer).toEqual({ ok: true, value: { retired: false, reason: "active" } });
    const other = await session(key).retire({
      action: "archive",
      idleBefore: Date.now(),
      expectedSessionId: "someone-else",
    });
    expect(other.ok).toBe(false);
    expect((await getSession(key)).status).toBe(200);
  });

  it("mode warn reports what is due and changes nothing", async () => {
    const old = await idleSession("main", 40);
    const result = await runMaintenance(env, "main", "enforce", {
      config: configWith({ mode: "warn", archiveAfter: "1d" }),
    });
    expect(result.wouldDelete).toBeGreaterThanOrEqual(1);
    expect(result.enforced).toEqual({
      archived: 0,
      deleted: 0,
      skipped: 0,
      searchRows: 0,
      runIndexRows: 0,
      grants: 0,
    });
    expect((await getSession(old)).status).toBe(200);
  });

  it("prunes old run index rows, grants a week after they expired, and search rows past searchRetention", async () => {
    const key = await idleSession("main", 0);
    const { sessionId } = (await getSession<{ sessionId: string }>(key)).json;
    const db = keyShard(indexShards(env), key);
    const old = Date.now() - 40 * DAY;
    await db
      .prepare("INSERT INTO run_index (run_id, session_key, created_at) VALUES (?, ?, ?), (?, ?, ?)")
      .bind(`old-${uid()}`, key, old, `new-${uid()}`, key, Date.now())
      .run();
    await env.DB.prepare(
      `INSERT INTO grants (grant_id, secret_hash, session_key, session_id, agent_id, scopes, created_at, expires_at)
       VALUES (?, 'x', ?, ?, 'main', 'read', ?, ?), (?, 'x', ?, ?, 'main', 'read', ?, ?)`,
    )
      .bind(
        `gone-${uid()}`,
        key,
        sessionId,
        old,
        old + 3600_000,
        `kept-${uid()}`,
        key,
        sessionId,
        Date.now(),
        Date.now() - DAY,
      )
      .run();
    await db
      .prepare(
        `INSERT INTO search_message (session_key, session_id, message_id, role, timestamp, text, scope)
         VALUES (?, ?, ?, 'user', ?, 'ancient words', 's'), (?, ?, ?, 'user', ?, 'recent words', 's')`,
      )
      .bind(key, sessionId, `m-${uid()}`, old, key, sessionId, `n-${uid()}`, Date.now() - DAY)
      .run();
    // As of half a day ago: the rows indexed before these two (this file's sessions, of now) are from
    // the future then, and a row from the future never stops the walk (src/index-db/search-retention.ts),
    // so the ancient row counts as indexed before the recent one, as an index pass would have written them.
    const result = await runMaintenance(env, "main", "enforce", {
      config: configWith({ searchRetention: "30d" }),
      now: Date.now() - DAY / 2,
    });
    expect(result.enforced?.runIndexRows).toBeGreaterThanOrEqual(1);
    expect(result.enforced?.grants).toBeGreaterThanOrEqual(1);
    expect(result.enforced?.searchRows).toBeGreaterThanOrEqual(1);
    const runs = await db.prepare("SELECT created_at FROM run_index WHERE session_key = ?").bind(key).all();
    expect(runs.results).toHaveLength(1);
    const grants = await env.DB.prepare("SELECT grant_id FROM grants WHERE session_key = ?").bind(key).all();
    expect(grants.results).toHaveLength(1); // expired a day ago: still listed for a week
    const texts = await db.prepare("SELECT text FROM search_message WHERE session_key = ?").bind(key).all();
    const kept = texts.results.map((row) => row.text);
    expect(kept).toContain("recent words");
    expect(kept).not.toContain("ancient words");
  });
});
