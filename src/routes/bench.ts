import type { MiddlewareHandler } from "hono";
import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../app-env";
import { listSessions } from "../index-db/list";
import { readJsonBody } from "./middleware";
import { parseBody } from "./parse-body";

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

/** Baselines for `npm run bench` (scripts/bench): the platform's floor under each service call. */
const benchRoutes = new Hono<AppEnv>()
  .basePath("/bench")
  .get("/ping/:key", async (c) => c.json({ pong: await c.env.SESSION.getByName(c.req.param("key")).ping() }))
  .get("/sql/:key", async (c) => {
    const limit = Number(c.req.query("limit") ?? 20);
    return c.json({ rows: await c.env.SESSION.getByName(c.req.param("key")).benchHistorySql(limit) });
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
    const page = await listSessions(c.env.DB, { ...rest, ...(cursor ? { cursor } : {}) });
    return c.json({ count: page.rows.length, rowsRead: page.rowsRead, nextCursor: page.nextCursor });
  });

/**
 * Serves the bench routes only when the Worker runs with `--var SWITCHBOARD_BENCH:1`; everywhere else
 * (tests, production) `/bench/*` falls through to the usual 404. A middleware, not a route, so the
 * OpenAPI route table (which documents the public API) does not list it.
 */
export const benchWhenEnabled: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.env.SWITCHBOARD_BENCH !== "1") return next();
  return benchRoutes.fetch(c.req.raw, c.env, c.executionCtx);
};
