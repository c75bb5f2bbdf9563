import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../../src/app-env";
import { listSessions } from "../../src/index-db/list-page";
import { indexShards, keyShard } from "../../src/index-db/shards";
import { readJsonBody } from "../../src/routes/middleware";
import { parseBody } from "../../src/routes/parse-body";
import { setLatencyOn, takeCounts } from "./counting";
import type { BenchSessionObject } from "./session-object";

// The list query as `listSessions` takes it, so the bench can read D1's rows_read for any filter.
const benchListSchema = z.object({
  scope: z.union([
    z.object({ type: z.enum(["self", "tree"]), sessionKey: z.string(), agentId: z.string() }),
    z.object({ type: z.literal("agents"), agentIds: z.array(z.string()) }),
    z.object({ type: z.literal("all") }),
  ]),
  kinds: z.array(z.string()).optional(),
  agentId: z.string().optional(),
  label: z.string().optional(),
  updatedSince: z.number().optional(),
  search: z.string().optional(),
  cursor: z.object({ updatedAt: z.number(), tiebreak: z.number() }).optional(),
  limit: z.number().int().min(1).max(200),
});

/** The session stub as the bench Worker has it: scripts/bench/wrangler.toml binds SESSION to the subclass. */
function benchSession(env: Env, key: string): DurableObjectStub<BenchSessionObject> {
  return (env.SESSION as unknown as DurableObjectNamespace<BenchSessionObject>).getByName(key);
}

/** Baselines for `npm run bench`: the platform's floor under each service call. */
export const benchRoutes = new Hono<AppEnv>()
  // The platform calls counted since the last reset (counting.ts); `?reset=1` starts again from zero.
  .get("/counts", (c) => c.json(takeCounts(c.req.query("reset") === "1")))
  // The latency model (counting.ts, BENCH_LATENCY) on (`?on=1`) or off; answers whether it is on now.
  .get("/latency", (c) => c.json(setLatencyOn(c.req.query("on") === "1")))
  .get("/ping/:key", async (c) => c.json({ pong: await benchSession(c.env, c.req.param("key")).benchPing() }))
  // One object calling another's bare RPC `calls` times (1–100), timed inside the caller.
  .get("/ping-peer/:key/:peer", async (c) => {
    const calls = Math.min(100, Math.max(1, Number(c.req.query("calls") ?? 10) || 1));
    const session = benchSession(c.env, c.req.param("key"));
    return c.json({ ms: await session.benchPingPeer(c.req.param("peer"), calls), calls });
  })
  .get("/write/:key", async (c) => c.json({ at: await benchSession(c.env, c.req.param("key")).benchWrite() }))
  .get("/sql/:key", async (c) => {
    const limit = Number(c.req.query("limit") ?? 20);
    return c.json({ rows: await benchSession(c.env, c.req.param("key")).benchHistoryRows(limit) });
  })
  // A history page's messages as stored, from the object to the client: the floor under sessions_history.
  .get("/page/:key", async (c) => {
    const text = await benchSession(c.env, c.req.param("key")).benchPageText(
      Number(c.req.query("limit") ?? 200),
    );
    return c.body(text, 200, { "Content-Type": "application/json" });
  })
  // 1 while a session's imported transcript is still being added to the search index (migrations/0007),
  // 0 once it is all there; null before its index row exists.
  .get("/backlog/:key", async (c) => {
    const key = c.req.param("key");
    const row = await keyShard(indexShards(c.env), key)
      .prepare("SELECT search_backlog FROM session_index WHERE session_key = ?")
      .bind(key)
      .first<{ search_backlog: number }>();
    return c.json({ backlog: row ? row.search_backlog : null });
  })
  .get("/d1", async (c) => c.json(await c.env.DB.prepare("SELECT 1 AS one").first()))
  // The dead-letter queue has no consumer, so this is the bare cost of one Queue send.
  .get("/queue", async (c) => {
    await c.env.DEAD_LETTERS.send({ bench: true });
    return c.json({ sent: true });
  })
  // The least an accepted fire-and-forget send can cost on this platform: the index read its checks need
  // (a primary-key lookup) and one Queue send (to the consumer-less dead-letter queue, so nothing follows).
  .get("/accept-floor", async (c) => {
    await c.env.DB.prepare("SELECT channel FROM session_index WHERE session_key = ?")
      .bind("agent:main:main")
      .first();
    await c.env.DEAD_LETTERS.send({ bench: true });
    return c.json({ sent: true });
  })
  .post("/list", async (c) => {
    const query = parseBody(benchListSchema, await readJsonBody(c.req.raw));
    const { cursor, ...rest } = query;
    const page = await listSessions(indexShards(c.env), { ...rest, ...(cursor ? { cursor } : {}) });
    return c.json({ count: page.rows.length, rowsRead: page.rowsRead, nextCursor: page.nextCursor });
  });
