import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../../app-env";
import { AppError } from "../../errors";
import { type AgentMaintenance, runMaintenance, shardSizes } from "../../maintenance/run-maintenance";
import { readJsonBody } from "../middleware";
import { parseBody } from "../parse-body";

const AGENTS_AT_ONCE = 4;

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
  const agents: AgentMaintenance[] = [];
  // A few agents at a time: each agent's batch is bounded, and so is how many run at once.
  const ids = config.agents.list.map((agent) => agent.id);
  for (let start = 0; start < ids.length; start += AGENTS_AT_ONCE) {
    const group = ids.slice(start, start + AGENTS_AT_ONCE);
    agents.push(
      ...(await Promise.all(group.map((agentId) => runMaintenance(c.env, agentId, mode, { config })))),
    );
  }
  const shards = await shardSizes(c.env);
  return c.json({
    mode,
    agents,
    shards,
    ...(mode === "enforce" ? { done: agents.every((agent) => agent.done !== false) } : {}),
  });
});
