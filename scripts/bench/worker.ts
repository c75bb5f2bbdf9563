// The bench's Worker (scripts/bench/wrangler.toml, started by server.mjs): the real Worker, unchanged,
// plus the baseline routes under /bench/* and a session object with the baselines it needs. None of it
// ships: `npm start`, the tests and `npm run deploy` use src/index.ts.
import { Hono } from "hono";
import type { AppEnv } from "../../src/app-env";
import worker from "../../src/index";
import { countingEnv } from "./counting";
import { benchRoutes } from "./routes";

export { BenchSessionObject } from "./session-object";

// /bench/* first, as its own sub-app, so the OpenAPI route table (the public API) never lists it; every
// other request goes to the real Worker as it is, middleware, errors and 404s included, with its bindings
// counted (counting.ts).
const benchApp = new Hono<AppEnv>()
  .route("/bench", benchRoutes)
  .all("*", (c) => worker.fetch(c.req.raw, countingEnv(c.env), c.executionCtx));

export default {
  fetch: benchApp.fetch,
  queue: (batch, env) => worker.queue(batch, countingEnv(env)),
} satisfies ExportedHandler<Env>;
