import { Hono } from "hono";
import type { AppEnv } from "../app-env";
import { keyOptionsOf } from "../config/key-options";
import { displayKey } from "../keys";
import { consoleViewer } from "./access";
import { channelRoutes } from "./channel-routes";
import { cronRoutes } from "./cron-routes";
import { listRoutes } from "./list-routes";
import { sessionRegionRoutes } from "./session-regions";
import { sessionRoutes } from "./session-routes";
import { storageRoutes } from "./storage-routes";

/** The fragments behind the console's pages; every one needs a token (routes.tsx). */
export const fragmentRoutes = new Hono<AppEnv>()
  // Who the token is: the client's sign-in check, and where a grant lands (its one session).
  .get("/whoami", (c) => {
    const viewer = consoleViewer(c);
    if (viewer.kind === "operator") return c.json({ kind: "operator" });
    return c.json({
      kind: "grant",
      sessionKey: viewer.sessionKey,
      displayKey: displayKey(viewer.sessionKey, keyOptionsOf(c.get("config"))),
      scopes: viewer.scopes,
    });
  })
  .route("/", listRoutes)
  .route("/channels", channelRoutes)
  .route("/cron", cronRoutes)
  .route("/storage", storageRoutes)
  .route("/sessions", sessionRoutes)
  .route("/sessions", sessionRegionRoutes);
