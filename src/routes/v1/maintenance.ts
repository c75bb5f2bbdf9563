import { Hono } from "hono";
import { z } from "zod";
import { agentApi } from "../../agent-object/client";
import type { AppEnv } from "../../app-env";
import { AppError } from "../../errors";
import { maintenanceReport } from "../../maintenance/report";
import { readJsonBody } from "../middleware";
import { parseBody } from "../parse-body";

/** `POST /v1/maintenance`. */
export const maintenanceRequestSchema = z.strictObject({
  mode: z
    .enum(["dry-run", "enforce"])
    .describe("dry-run: report only; enforce: report, then apply one bounded batch of the retention policy"),
});

/**
 * SPEC §23 maintenance, the operator's: every configured agent's storage and, with `enforce`, one
 * bounded batch of its policy per agent (a call lasts about as long as a normal write); `done: false`
 * says more is due, so the caller (the CLI) calls again. A crash between calls loses nothing: each
 * batch starts from what the index says is still due.
 */
export const maintenanceRoutes = new Hono<AppEnv>().post("/", async (c) => {
  if (c.get("identity").kind !== "operator")
    throw new AppError("forbidden", "maintenance needs the operator token");
  const { mode } = parseBody(maintenanceRequestSchema, await readJsonBody(c.req.raw));
  const config = c.get("config");
  // Each agent's object arms its daily pass once it knows its agent: an agent without cron jobs may
  // never have been woken, so the operator's first maintenance call wakes every one.
  await Promise.all(config.agents.list.map(({ id }) => agentApi(c.env, id).cronSync(id)));
  return c.json(await maintenanceReport(c.env, config, mode));
});
