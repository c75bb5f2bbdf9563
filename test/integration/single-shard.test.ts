import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { descendants, pendingDescendants, visibleChildKeys } from "../../src/index-db/children";
import { listSessions, listSessionsWithChildren } from "../../src/index-db/list-page";
import { collectorSpawners, controlledRuns } from "../../src/index-db/runs";
import { spawnTree } from "../../src/index-db/tree";
import { uid } from "../support";
import { shards, shardsOf } from "../support/shards";
import { seedIndexRows } from "./fixtures";

// The suite runs on three shards (vitest.config.ts), but a deployment has one by default, and with one the
// index runs other SQL: recursive queries instead of walks level by level, and a sessions_list page with
// its children in one batch. Here the same rows (all of agent main, whose shard is DB) are read through
// `[env.DB]` (the one-shard code) and through the three shards (the fan-out code): the answers must agree,
// and match what the tree is.
const ONE_SHARD = shardsOf(env.DB);

function tree(u: string) {
  const base = Date.now() - 60_000;
  const key = (name: string) => `agent:main:subagent:one-${u}-${name}`;
  const root = `agent:main:one-${u}-root`;
  const rows = [
    { sessionKey: root, agentId: "main", updatedAt: base, label: `one-${u}` },
    { sessionKey: key("a"), agentId: "main", updatedAt: base - 1, spawnedBy: root },
    { sessionKey: key("b"), agentId: "main", updatedAt: base - 2, spawnedBy: root },
    { sessionKey: key("a1"), agentId: "main", updatedAt: base - 3, spawnedBy: key("a") },
    // Hidden (list_state 2): it ends its branch, so a21 is never reached.
    { sessionKey: key("a2"), agentId: "main", updatedAt: base - 4, spawnedBy: key("a"), listState: 2 },
    { sessionKey: key("a21"), agentId: "main", updatedAt: base - 5, spawnedBy: key("a2") },
  ];
  return { root, key, rows };
}

const keysOf = (nodes: readonly { sessionKey: string }[]) => nodes.map((node) => node.sessionKey).sort();

describe("one index shard runs its own SQL, and it agrees with the sharded walks", () => {
  it("descendants, spawnTree and pending counts: the recursive queries match the tree and the level walks", async () => {
    const { root, key, rows } = tree(uid());
    await seedIndexRows(rows, env.DB);
    const expected = [key("a"), key("a1"), key("b")].sort();
    expect(keysOf(await descendants(ONE_SHARD, root))).toEqual(expected);
    expect(keysOf(await descendants(shards(), root))).toEqual(expected);
    expect(keysOf(await spawnTree(ONE_SHARD, root))).toEqual(keysOf(await spawnTree(shards(), root)));
    // Seeded rows have no run status: every reached descendant counts as pending.
    const one = await pendingDescendants(ONE_SHARD, [root, key("a")]);
    expect(Object.fromEntries(one)).toEqual({ [root]: 3, [key("a")]: 1 });
    expect(Object.fromEntries(await pendingDescendants(shards(), [root, key("a")]))).toEqual(
      Object.fromEntries(one),
    );
  });

  it("controlledRuns: a run belongs to its ancestors' controlled tree, never to a stranger's", async () => {
    const u = uid();
    const { root, key, rows } = tree(u);
    await seedIndexRows(rows, env.DB);
    const runId = crypto.randomUUID();
    await env.DB.prepare("INSERT INTO run_index (run_id, session_key, created_at) VALUES (?, ?, ?)")
      .bind(runId, key("a1"), Date.now())
      .run();
    for (const db of [ONE_SHARD, shards()]) {
      expect(Object.fromEntries(await controlledRuns(db, root, [runId]))).toEqual({ [runId]: key("a1") });
      expect(Object.fromEntries(await controlledRuns(db, key("a"), [runId]))).toEqual({ [runId]: key("a1") });
      expect((await controlledRuns(db, key("b"), [runId])).size).toBe(0);
    }
  });

  it("the two walks up from a run: controlledRuns passes hidden sessions, collectorSpawners does not", async () => {
    const { root, key, rows } = tree(uid());
    await seedIndexRows(rows, env.DB);
    const [inA21, byA1, byA21] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    const insert = "INSERT INTO run_index (run_id, session_key, created_at, spawner_key) VALUES (?, ?, ?, ?)";
    await env.DB.batch([
      env.DB.prepare(insert).bind(inA21, key("a21"), Date.now(), null),
      // Collector runs: their own session's row may be gone, the run index keeps the spawner.
      env.DB.prepare(insert).bind(byA1, `${key("a1")}:gone`, Date.now(), key("a1")),
      env.DB.prepare(insert).bind(byA21, `${key("a21")}:gone`, Date.now(), key("a21")),
    ]);
    const all = [inA21, byA1, byA21];
    for (const db of [ONE_SHARD, shards()]) {
      // a21's run is in the controlled tree of root through its hidden parent a2.
      expect(Object.fromEntries(await controlledRuns(db, root, all))).toEqual({ [inA21]: key("a21") });
      // A collector run belongs to its spawner and the spawner's listed ancestors, the spawner included.
      expect(Object.fromEntries(await collectorSpawners(db, root, all))).toEqual({ [byA1]: key("a1") });
      expect(Object.fromEntries(await collectorSpawners(db, key("a1"), all))).toEqual({ [byA1]: key("a1") });
      expect(Object.fromEntries(await collectorSpawners(db, key("a21"), all))).toEqual({
        [byA21]: key("a21"),
      });
      expect((await collectorSpawners(db, key("b"), all)).size).toBe(0);
    }
  });

  it("sessions_list for the operator: the page and its children in one batch equal the two reads", async () => {
    const u = uid();
    const { root, key, rows } = tree(u);
    const others = Array.from({ length: 4 }, (_, i) => ({
      sessionKey: `agent:main:one-${u}-other-${i}`,
      agentId: "main",
      updatedAt: Date.now() - 90_000 - i,
      label: `one-${u}`,
    }));
    await seedIndexRows([...rows, ...others], env.DB);
    const query = { scope: { type: "all" as const }, label: `one-${u}`, limit: 3 };
    const batched = await listSessionsWithChildren(ONE_SHARD, query);
    const page = await listSessions(shards(), query);
    const pageKeys = page.rows.map((row) => String(row.session_key));
    expect(batched.page.rows.map((row) => String(row.session_key))).toEqual(pageKeys);
    expect(batched.page.hasMore).toBe(true);
    // The fan-out's cursor also names its last row's shard; one shard's names none.
    const { shard, ...position } = page.nextCursor ?? {};
    expect(shard).toBe(0);
    expect(batched.page.nextCursor).toEqual(position);
    expect(batched.children.get(root)).toEqual([key("a"), key("b")]);
    expect(Object.fromEntries(batched.children)).toEqual(
      Object.fromEntries(await visibleChildKeys(shards(), pageKeys, query.scope)),
    );
  });
});

// SPEC §23 "Generations": a root deleted and created again under its key has a new session id; the
// children bound to the old one are no part of its tree, in the recursive queries and the level walks.
describe("spawn walks go by session id, not by key", () => {
  it("descendants, spawnTree and pending counts leave out the children of an earlier session of a key", async () => {
    const u = uid();
    const base = Date.now() - 60_000;
    const key = (name: string) => `agent:main:subagent:gen-${u}-${name}`;
    const root = `agent:main:gen-${u}-root`;
    const [now, earlier, middle] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    const rows = [
      { sessionKey: root, sessionId: now, agentId: "main", updatedAt: base },
      // The root's own children: one bound to its session, one from before children were bound.
      {
        sessionKey: key("own"),
        sessionId: middle,
        agentId: "main",
        updatedAt: base - 1,
        spawnedBy: root,
        spawnedById: now,
      },
      { sessionKey: key("unbound"), agentId: "main", updatedAt: base - 2, spawnedBy: root },
      // The deleted session's child, and its own child: neither is in the tree.
      { sessionKey: key("old"), agentId: "main", updatedAt: base - 3, spawnedBy: root, spawnedById: earlier },
      { sessionKey: key("old1"), agentId: "main", updatedAt: base - 4, spawnedBy: key("old") },
      // Under the root's own child: its child, and one of an earlier session of that child's key.
      {
        sessionKey: key("own1"),
        agentId: "main",
        updatedAt: base - 5,
        spawnedBy: key("own"),
        spawnedById: middle,
      },
      {
        sessionKey: key("own0"),
        agentId: "main",
        updatedAt: base - 6,
        spawnedBy: key("own"),
        spawnedById: earlier,
      },
    ];
    await seedIndexRows(rows, env.DB);
    const expected = [key("own"), key("own1"), key("unbound")].sort();
    for (const db of [ONE_SHARD, shards()]) {
      expect(keysOf(await descendants(db, root))).toEqual(expected);
      expect(keysOf(await spawnTree(db, root))).toEqual(expected);
      expect(Object.fromEntries(await pendingDescendants(db, [root, key("own")]))).toEqual({
        [root]: 3,
        [key("own")]: 1,
      });
    }
    // A run of the old session's grandchild is not in the root's controlled tree; its own grandchild's is.
    const [oldRun, ownRun] = [crypto.randomUUID(), crypto.randomUUID()];
    const insert = env.DB.prepare("INSERT INTO run_index (run_id, session_key, created_at) VALUES (?, ?, ?)");
    await env.DB.batch([insert.bind(oldRun, key("old1"), base), insert.bind(ownRun, key("own1"), base)]);
    for (const db of [ONE_SHARD, shards()])
      expect([...(await controlledRuns(db, root, [oldRun, ownRun], now)).keys()]).toEqual([ownRun]);
  });
});
