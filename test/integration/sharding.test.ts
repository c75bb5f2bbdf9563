import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { descendants, listChildren, pendingDescendants, visibleChildKeys } from "../../src/index-db/children";
import { listSessions } from "../../src/index-db/list-page";
import { findRunSession } from "../../src/index-db/runs";
import type { IndexShards } from "../../src/index-db/shards";
import { shardNumber } from "../../src/index-db/shards";
import { spawnTree } from "../../src/index-db/tree";
import { deliveryQueue } from "../../src/queue/queues";
import { decodeJsonCursor } from "../../src/tools/list-cursor";
import {
  ADMIN,
  call,
  createSession,
  driveUntil,
  importMessages,
  msg,
  sendMessage,
  toolWithConfig,
  transcript,
  uid,
  waitRun,
  workerConfigWith,
} from "../support";
import { rowsInEveryShard, shardOf, shards, shardsOf } from "../support/shards";
import { spawnOk, subagents } from "../support/subagents";
import { seedIndexRows } from "./fixtures";

// vitest.config.ts binds three index shards; with FNV-1a mod 3 these agents live one in each.
const SHARD_OF_AGENT = { main: 0, research: 1, worker: 2 } as const;
const AGENTS = Object.keys(SHARD_OF_AGENT) as (keyof typeof SHARD_OF_AGENT)[];
// Every session visible to every requester: lists and searches fan out over every shard.
const everyone = workerConfigWith((config) => {
  config.tools.sessions.visibility = "all";
  config.tools.agentToAgent.allow = ["*"];
});

/** How many rows `sql` finds in each shard, in shard order. */
async function countsPerShard(sql: string, ...params: unknown[]): Promise<number[]> {
  return Promise.all(
    shards().map(async (db) => {
      const row = await db
        .prepare(`SELECT COUNT(*) AS n FROM (${sql})`)
        .bind(...params)
        .first<{ n: number }>();
      return row?.n ?? 0;
    }),
  );
}

/** The shards, each wrapped to note (in `touched`) that a statement was prepared on it. */
function watchedShards(): { watched: IndexShards; touched: Set<number> } {
  const touched = new Set<number>();
  const [first, ...rest] = shards().map(
    (db, shard) =>
      new Proxy(db, {
        get(target, property) {
          if (property === "prepare") touched.add(shard);
          const value = Reflect.get(target, property);
          return typeof value === "function" ? value.bind(target) : value;
        },
      }),
  );
  return { watched: shardsOf(first as D1Database, ...rest), touched };
}

describe("the session index sharded by agent over three D1 databases", () => {
  it("writes each session's index rows to its agent's shard, finds a run in its session's shard by its id, keeps grants in shard 0", async () => {
    expect(shards()).toHaveLength(3);
    for (const agent of AGENTS) expect(shardNumber(agent, 3)).toBe(SHARD_OF_AGENT[agent]);
    const u = uid();
    const keys = AGENTS.map((agent) => `agent:${agent}:rows-${u}`);
    for (const [at, key] of keys.entries()) await createSession({ agentId: AGENTS[at], key });
    const runId = await sendMessage(keys[1] ?? "", "hello shard one");
    await waitRun(runId);
    for (const [at, key] of keys.entries()) {
      const expected = shards().map((_, shard) => (shard === at ? 1 : 0));
      const rows = () => countsPerShard("SELECT 1 FROM session_index WHERE session_key = ?", key);
      await driveUntil(
        [key],
        async () => ((await rows()).join() === expected.join() ? true : undefined),
        key,
      );
    }
    const runRows = () => countsPerShard("SELECT 1 FROM run_index WHERE run_id = ?", runId);
    await driveUntil(
      [keys[1] ?? ""],
      async () => ((await runRows()).join() === "0,1,0" ? true : undefined),
      "run",
    );
    // GET /v1/runs/{runId}: the chat turn's run id was minted to hash to its session's shard (runIdIn), so
    // the lookup reads that shard alone; an id that names no shard (here one never made) asks all three.
    expect(shardNumber(runId, 3)).toBe(1);
    const run = await call<{ runId: string; sessionKey: string }>("GET", `/v1/runs/${runId}`, {
      token: ADMIN,
    });
    expect(run.status, run.text).toBe(200);
    expect(run.json).toMatchObject({ runId, sessionKey: keys[1] });
    const { watched, touched } = watchedShards();
    expect(await findRunSession(watched, runId)).toBe(keys[1]);
    expect([...touched]).toEqual([1]);
    touched.clear();
    expect(await findRunSession(watched, crypto.randomUUID())).toBeUndefined();
    expect([...touched].sort()).toEqual([0, 1, 2]);

    const grant = await call<{ grantId: string }>("POST", "/v1/grants", {
      token: ADMIN,
      body: { sessionKey: keys[2], scopes: ["read"], ttlSeconds: 60 },
    });
    expect(grant.status, grant.text).toBe(201);
    expect(await countsPerShard("SELECT 1 FROM grants WHERE grant_id = ?", grant.json.grantId)).toEqual([
      1, 0, 0,
    ]);
  });

  it("an operator-wide list fans out and pages by its cursor across shards (ties included, nothing lost or doubled); an agent's list reads its shard only", async () => {
    const u = uid();
    const label = `sharded-${u}`;
    const base = Date.now() - 60_000;
    // Two rows per updatedAt in each shard: the same (updatedAt, slot) occurs in all three shards.
    await seedIndexRows(
      AGENTS.flatMap((agent) =>
        [0, 0, 1, 1].map((older, i) => ({
          sessionKey: `agent:${agent}:list-${u}-${i}`,
          agentId: agent,
          updatedAt: base - older,
          label,
        })),
      ),
    );
    const stored = await Promise.all(
      shards().map(async (db, shard) => {
        const { results } = await db
          .prepare(
            "SELECT session_key, updated_at, recency % 1048576 AS slot FROM session_index WHERE label = ?",
          )
          .bind(label)
          .all<{ session_key: string; updated_at: number; slot: number }>();
        return results.map((row) => ({ ...row, shard }));
      }),
    );
    expect(stored.map((rows) => rows.length)).toEqual([4, 4, 4]);
    // The merged order: recency (updatedAt, then its slot), then the shard, all descending.
    const expected = stored
      .flat()
      .sort((a, b) => b.updated_at - a.updated_at || b.slot - a.slot || b.shard - a.shard)
      .map((row) => row.session_key);

    const requester = `agent:main:lister-${u}`;
    await createSession({ agentId: "main", key: requester });
    const seen: string[] = [];
    const pageSizes: number[] = [];
    let cursor: string | undefined;
    do {
      const page = await toolWithConfig(everyone, "sessions_list", requester, {
        label,
        limit: 5,
        ...(cursor ? { cursor } : {}),
      });
      seen.push(...page.sessions.map((row) => row.key));
      pageSizes.push(page.sessions.length);
      cursor = page.nextCursor;
      if (cursor) expect(decodeJsonCursor(cursor)).toMatchObject({ s: expect.any(Number) });
    } while (cursor);
    expect(pageSizes).toEqual([5, 5, 2]);
    expect(seen).toEqual(expected);

    const { watched, touched } = watchedShards();
    const query = { label, limit: 10 };
    const research = await listSessions(watched, {
      ...query,
      scope: { type: "agents", agentIds: ["research"] },
    });
    expect(research.rows.map((row) => row.session_key)).toEqual(
      expected.filter((key) => key.includes(":research:")),
    );
    expect([...touched]).toEqual([1]);
    touched.clear();
    const worker = await listSessions(watched, { ...query, scope: { type: "all" }, agentId: "worker" });
    expect(worker.rows).toHaveLength(4);
    expect([...touched]).toEqual([2]);
    touched.clear();
    await listSessions(watched, {
      ...query,
      scope: { type: "tree", sessionKey: requester, agentId: "main" },
    });
    expect([...touched]).toEqual([0]);
    touched.clear();
    await listSessions(watched, { ...query, scope: { type: "all" } });
    expect([...touched].sort()).toEqual([0, 1, 2]);
  });

  it("searches every shard, merges by rank and pages from each shard's pinned snapshot", async () => {
    const u = uid();
    const word = `zshard${u}`;
    const keys = AGENTS.map((agent) => `agent:${agent}:search-${u}`);
    const now = Date.now() - 60_000;
    for (const [at, key] of keys.entries()) {
      await createSession({ agentId: AGENTS[at], key });
      await importMessages(key, [msg(`m${at}`, "user", `found ${word} in shard ${at}`, now + at)]);
    }
    const indexed = () => rowsInEveryShard("SELECT 1 FROM search_message WHERE instr(text, ?) > 0", word);
    await driveUntil(
      keys,
      async () => ((await indexed()).length === 3 ? true : undefined),
      "the search rows",
    );

    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await toolWithConfig(everyone, "sessions_search", keys[0] ?? "", {
        query: word,
        limit: 1,
        ...(cursor ? { cursor } : {}),
      });
      seen.push(...page.results.map((hit) => `${hit.sessionKey}/${hit.messageId}`));
      cursor = page.nextCursor;
      if (cursor && seen.length === 1) {
        // One high-water mark per shard; a message indexed after the first page stays out of the others.
        expect(decodeJsonCursor(cursor)).toMatchObject({
          h: [expect.any(Number), expect.any(Number), expect.any(Number)],
        });
        await importMessages(keys[1] ?? "", [msg("late", "user", `late ${word}`, now + 10)]);
        await driveUntil(
          keys,
          async () => ((await indexed()).length === 4 ? true : undefined),
          "the late row",
        );
      }
    } while (cursor);
    expect(seen.sort()).toEqual(keys.map((key, at) => `${key}/m${at}`).sort());
  });

  it("walks a spawn tree that crosses agents across shards: children, descendants, tree view, pending counts", async () => {
    const u = uid();
    const now = Date.now() - 60_000;
    const root = `agent:main:tree-${u}`;
    const child = `agent:research:subagent:tree-${u}-a`;
    const grandchild = `agent:worker:subagent:tree-${u}-b`;
    const deepest = `agent:main:subagent:tree-${u}-c`;
    const sibling = `agent:worker:subagent:tree-${u}-d`;
    await seedIndexRows([
      { sessionKey: root, agentId: "main", updatedAt: now, label: `tree-${u}` },
      { sessionKey: child, agentId: "research", updatedAt: now - 2, spawnedBy: root },
      { sessionKey: sibling, agentId: "worker", updatedAt: now - 1, spawnedBy: root },
      { sessionKey: grandchild, agentId: "worker", updatedAt: now - 3, spawnedBy: child },
      { sessionKey: deepest, agentId: "main", updatedAt: now - 4, spawnedBy: grandchild },
    ]);
    expect((await spawnTree(shards(), root)).map((node) => [node.sessionKey, node.spawnedBy])).toEqual([
      [sibling, root],
      [child, root],
      [grandchild, child],
      [deepest, grandchild],
    ]);
    expect((await descendants(shards(), child)).map((node) => [node.sessionKey, node.agentId])).toEqual([
      [grandchild, "worker"],
      [deepest, "main"],
    ]);
    expect(Object.fromEntries(await pendingDescendants(shards(), [root, child]))).toEqual({
      [root]: 4,
      [child]: 2,
    });
    expect((await listChildren(shards(), root)).map((row) => row.sessionKey)).toEqual([sibling, child]);
    expect(await visibleChildKeys(shards(), [root], { type: "all" })).toEqual(
      new Map([[root, [sibling, child]]]),
    );
    // An agent's tree scope hides children of other agents (and reads its own shard).
    expect(
      await visibleChildKeys(shards(), [root], { type: "tree", sessionKey: root, agentId: "main" }),
    ).toEqual(new Map());
    const listed = await toolWithConfig(everyone, "sessions_list", root, { label: `tree-${u}` });
    expect(listed.sessions.map((row) => [row.key, row.childSessions])).toEqual([[root, [sibling, child]]]);
  });

  it("a real cross-agent spawn: the requester's subagents list and the run's lookup reach the child's shard", async () => {
    const requester = `agent:main:spawner-${uid()}`;
    await createSession({ agentId: "main", key: requester });
    const { child, runId } = await spawnOk(requester, { task: "look it up", agentId: "research" });
    expect(shardOf(child)).toBe(shards()[1]);
    await waitRun(runId);
    const listed = await driveUntil(
      [requester, child],
      async () => {
        const result = await subagents(requester, {});
        return result.recent.some((each) => each.sessionKey === child) ? result : undefined;
      },
      "the child in subagents",
    );
    expect(listed.recent.map((each) => each.runId)).toContain(runId);
    const run = await call<{ sessionKey: string }>("GET", `/v1/runs/${runId}`, { token: ADMIN });
    expect(run.json.sessionKey).toBe(child);
  });

  it("spreads fire-and-forget sends over the deliveries queues by target; the second queue's are consumed", async () => {
    const u = uid();
    const requester = `agent:main:q-from-${u}`;
    await createSession({ agentId: "main", key: requester });
    let n = 0;
    while (shardNumber(`agent:main:q-to-${u}-${n}`, 2) !== 1) n++;
    const target = `agent:main:q-to-${u}-${n}`;
    await createSession({ agentId: "main", key: target });
    const turn = { runId: "r", message: "m" } as never;
    expect(deliveryQueue(env, { type: "send", targetKey: target, turn })).toBe(env.DELIVERIES_1);
    expect(deliveryQueue(env, { type: "send", targetKey: requester, turn })).toBe(
      shardNumber(requester, 2) === 1 ? env.DELIVERIES_1 : env.DELIVERIES,
    );
    const sent = await toolWithConfig(everyone, "sessions_send", requester, {
      sessionKey: target,
      message: "over the second queue",
      timeoutSeconds: 0,
    });
    expect(sent).toMatchObject({ status: "accepted", targetDisposition: "queued" });
    const delivered = await driveUntil(
      [target],
      async () =>
        (await transcript(target)).find((message) =>
          JSON.stringify(message.content).includes("second queue"),
        ),
      "the queued turn in its target",
    );
    expect(delivered.role).toBe("user");
  });
});
