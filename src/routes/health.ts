import { Hono } from "hono";
import type { AppEnv } from "../app-env";
import { loadedConfig } from "../config/load";
import { VERSION } from "../version";

/**
 * `GET /healthz`, no auth: version, where the configuration comes from, whether it is valid, and the
 * secrets it names that this Worker lacks (SPEC §20: by name, never a value).
 */
export const healthRoutes = new Hono<AppEnv>().get("/", (c) => {
  const { result, source, missingSecrets } = loadedConfig(c.env);
  if (result.ok) return c.json({ ok: true, version: VERSION, config: source, missingSecrets });
  return c.json(
    {
      ok: false,
      version: VERSION,
      config: source,
      error: { code: "config_invalid", message: result.error },
    },
    500,
  );
});
