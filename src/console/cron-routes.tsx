import { Hono } from "hono";
import { agentApi } from "../agent-object/client";
import type { AppEnv } from "../app-env";
import { AppError } from "../errors";
import { requireOperator } from "./access";
import { CronJobsView, CronJobView } from "./pages/cron";

/**
 * The schedules pages (SPEC §22 "a console page"), the operator's alone: every agent's jobs, each from its
 * agent's scheduler object, and one job with its runs.
 */
export const cronRoutes = new Hono<AppEnv>()
  .get("/", async (c) => {
    requireOperator(c);
    const agents = c.get("config").agents.list.map((agent) => agent.id);
    const lists = await Promise.all(agents.map((agentId) => agentApi(c.env, agentId).cronList(agentId)));
    return c.html(<CronJobsView jobs={lists.flat()} />);
  })
  .get("/:agentId/:jobId", async (c) => {
    requireOperator(c);
    const { agentId, jobId } = c.req.param();
    if (!c.get("config").agents.list.some((agent) => agent.id === agentId))
      throw new AppError("not_found", `unknown agent "${agentId}"`);
    const scheduler = agentApi(c.env, agentId);
    const [job, runs] = await Promise.all([
      scheduler.cronGet(agentId, jobId),
      scheduler.cronRuns(agentId, jobId),
    ]);
    if (!job.ok || !runs.ok)
      throw new AppError("not_found", `no job "${jobId}" of agent ${agentId}: see /console/cron`);
    return c.html(<CronJobView job={job.value} runs={runs.value} />);
  });
