import { type Context, Hono } from "hono";
import type { AppEnv } from "../app-env";
import { keyOptionsOf } from "../config/key-options";
import { listDeliveries } from "../index-db/deliveries";
import { readShards } from "../index-db/shards";
import { spawnTree } from "../index-db/tree";
import { unwrapResult } from "../routes/store-result";
import { canonicalKeyForRequest } from "../routes/v1/session-access";
import { sessionApi } from "../session/client";
import { requireOperator } from "./access";
import { SessionActivity } from "./pages/session-activity";
import { SessionDeliveries } from "./pages/session-deliveries";
import { SessionRuns } from "./pages/session-runs";
import { SessionTree } from "./pages/session-tree";

// The region shows the newest records; the deliveries page pages through the rest.
const DELIVERIES_SHOWN = 50;

/** The operator's canonical key for the path's `:key` (403 for a grant first, then 400 naming `key`). */
function operatorKey(c: Context<AppEnv>): string {
  requireOperator(c);
  return canonicalKeyForRequest(c.get("identity"), c.get("config"), c.req.param("key") ?? "");
}

/** The session's recent runs, watchers and events, as its object has them now (404 when it is gone). */
async function inspect(c: Context<AppEnv>) {
  return unwrapResult(await sessionApi(c.env.SESSION, operatorKey(c)).inspect());
}

/**
 * The session page's operator-only regions (`/console/fragments/sessions/:key/<region>`), each loaded
 * and refreshed on its own by the client: a grant's page shows none of them (403).
 */
export const sessionRegionRoutes = new Hono<AppEnv>()
  .get("/:key/runs", async (c) => c.html(<SessionRuns runs={(await inspect(c)).runs} />))
  .get("/:key/activity", async (c) =>
    c.html(<SessionActivity inspection={await inspect(c)} keyOptions={keyOptionsOf(c.get("config"))} />),
  )
  .get("/:key/tree", async (c) => {
    const sessionKey = operatorKey(c);
    const nodes = await spawnTree(readShards(c.env), sessionKey);
    return c.html(
      <SessionTree rootKey={sessionKey} nodes={nodes} keyOptions={keyOptionsOf(c.get("config"))} />,
    );
  })
  .get("/:key/deliveries", async (c) => {
    const sessionKey = operatorKey(c);
    const page = await listDeliveries(readShards(c.env), { sessionKey, limit: DELIVERIES_SHOWN });
    const more = page.next ? `/console/deliveries?sessionKey=${encodeURIComponent(sessionKey)}` : undefined;
    return c.html(<SessionDeliveries deliveries={page.deliveries} more={more} />);
  });
