import { Hono } from "hono";
import type { AppEnv } from "../app-env";
import { loadConfig } from "../config/load";
import { VERSION } from "../version";

/** `GET /healthz`, no auth: version, and whether the configuration is valid. */
export const healthRoutes = new Hono<AppEnv>().get("/", (c) => {
  const config = loadConfig(c.env);
  if (config.ok) return c.json({ ok: true, version: VERSION });
  return c.json(
    { ok: false, version: VERSION, error: { code: "config_invalid", message: config.error } },
    500,
  );
});
