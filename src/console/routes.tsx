import { type Context, Hono } from "hono";
import type { AppEnv } from "../app-env";
import { AppError } from "../errors";
import { requireIdentity } from "../routes/middleware";
import { assetUrls, consoleAsset } from "./assets";
import { consoleHeaders } from "./csp";
import { fragmentRoutes } from "./fragments";
import { Shell } from "./shell";

/**
 * A console page: the shell for its fragment, the same path and query under /console/fragments (or
 * `path`'s, for the front page).
 */
function shellFor(title: string | ((c: Context<AppEnv>) => string), path?: string) {
  return async (c: Context<AppEnv>) => {
    const url = new URL(c.req.url);
    const fragment = `/console/fragments${path ?? url.pathname.slice("/console".length)}${url.search}`;
    const name = typeof title === "string" ? title : title(c);
    return c.html(<Shell title={name} fragment={fragment} assets={await assetUrls()} />);
  };
}

/**
 * `/console`: the operator console (README "Console"). Pages are shells with no data; their fragments
 * (server-rendered with Hono's JSX, every text escaped) need the bearer token the client sends.
 */
export const consoleRoutes = new Hono<AppEnv>()
  .use(consoleHeaders)
  .get("/assets/:name", async (c) => {
    const name = c.req.param("name");
    const asset = await consoleAsset(name);
    if (!asset) throw new AppError("not_found", `no console asset ${name}`);
    // Cached for good only under this text's own version: during a deploy an older isolate may be asked
    // for a newer version, and must not pin its text under that URL.
    const current = c.req.query("v") === asset.version;
    return c.body(asset.text, 200, {
      "Content-Type": asset.type,
      "Cache-Control": current ? "public, max-age=31536000, immutable" : "no-cache",
    });
  })
  .use("/fragments/*", requireIdentity)
  .route("/fragments", fragmentRoutes)
  .get("/", shellFor("Sessions", "/sessions"))
  .get("/sessions", shellFor("Sessions"))
  .get(
    "/sessions/:key",
    shellFor((c) => `Session ${c.req.param("key")}`),
  )
  .get("/deliveries", shellFor("Deliveries"))
  .get("/channels", shellFor("Channels"))
  .get(
    "/channels/:name",
    shellFor((c) => `Channel ${c.req.param("name")}`),
  )
  .get("/cron", shellFor("Schedules"))
  .get(
    "/cron/:agentId/:jobId",
    shellFor((c) => `Job ${c.req.param("jobId")}`),
  )
  .get("/storage", shellFor("Storage"))
  .all("*", (c) => {
    throw new AppError("not_found", `no console page ${c.req.path}`);
  });
