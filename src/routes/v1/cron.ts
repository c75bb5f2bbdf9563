import { type Context, Hono } from "hono";
import { z } from "zod";
import { agentApi, type CronResult } from "../../agent-object/client";
import type { AppEnv } from "../../app-env";
import { jobInputSchema, jobPatchSchema } from "../../cron/job-schema";
import { addCronJob, type CronDeps, knownAgent, updateCronJob } from "../../cron/jobs";
import { AppError, type ErrorCode } from "../../errors";
import { sessionApi } from "../../session/client";
import { readJsonBody } from "../middleware";
import { parseBody } from "../parse-body";
import { assertOperatorApiAccess } from "./session-access";

/** The query naming the agent whose jobs a call is about (an agent token's own by default). */
export const cronQuerySchema = z.strictObject({
  agentId: z.string().trim().toLowerCase().min(1).optional(),
});

/** `POST /v1/cron/jobs`: a job, with the agent it belongs to (the operator must name it). */
export const createCronJobSchema = jobInputSchema;

const errorCodes: Record<Extract<CronResult<never>, { ok: false }>["code"], ErrorCode> = {
  bad_request: "bad_request",
  not_found: "not_found",
  conflict: "conflict",
};

/** A scheduler result as a value, or its HTTP error (400 naming the field, 404, 409). */
function unwrap<T>(result: CronResult<T>): T {
  if (result.ok) return result.value;
  throw new AppError(errorCodes[result.code], result.message);
}

/**
 * The agent a call acts for (SPEC §22): the operator names any configured agent; an agent token acts for
 * its own only (naming another is 403); run and grant tokens are refused.
 */
function actingAgent(c: Context<AppEnv>, named: string | undefined): string {
  const identity = c.get("identity");
  assertOperatorApiAccess(identity);
  if (identity.kind === "agent" && named !== undefined && named !== identity.agentId)
    throw new AppError("forbidden", "agentId: an agent token manages its own agent's jobs only");
  const agentId = identity.kind === "agent" ? identity.agentId : named;
  if (agentId === undefined) throw new AppError("bad_request", "agentId required");
  return unwrap(knownAgent(c.get("config"), agentId));
}

const queryAgent = (c: Context<AppEnv>) => actingAgent(c, parseBody(cronQuerySchema, c.req.query()).agentId);

function deps(c: Context<AppEnv>): CronDeps {
  return {
    config: c.get("config"),
    agent: (agentId) => agentApi(c.env, agentId),
    session: (key) => sessionApi(c.env.SESSION, key),
  };
}

/** SPEC §22's REST face of the cron tool: bodies and answers as the tool's. */
export const cronRoutes = new Hono<AppEnv>()
  .get("/jobs", async (c) => {
    const agentId = queryAgent(c);
    return c.json({ jobs: await agentApi(c.env, agentId).cronList(agentId) });
  })
  .post("/jobs", async (c) => {
    const input = parseBody(createCronJobSchema, await readJsonBody(c.req.raw));
    const agentId = actingAgent(c, input.agentId);
    return c.json(unwrap(await addCronJob(deps(c), agentId, input)), 201);
  })
  .get("/jobs/:jobId", async (c) => {
    const agentId = queryAgent(c);
    return c.json(unwrap(await agentApi(c.env, agentId).cronGet(agentId, c.req.param("jobId"))));
  })
  .patch("/jobs/:jobId", async (c) => {
    const agentId = queryAgent(c);
    const patch = parseBody(jobPatchSchema, await readJsonBody(c.req.raw));
    return c.json(unwrap(await updateCronJob(deps(c), agentId, c.req.param("jobId"), patch)));
  })
  .delete("/jobs/:jobId", async (c) => {
    const agentId = queryAgent(c);
    unwrap(await agentApi(c.env, agentId).cronRemove(agentId, c.req.param("jobId")));
    return c.json({ status: "ok", removed: true });
  })
  .post("/jobs/:jobId/run", async (c) => {
    const agentId = queryAgent(c);
    const { runId } = unwrap(await agentApi(c.env, agentId).cronRun(agentId, c.req.param("jobId")));
    return c.json({ ok: true, enqueued: true, runId });
  })
  .get("/jobs/:jobId/runs", async (c) => {
    const agentId = queryAgent(c);
    return c.json({ runs: unwrap(await agentApi(c.env, agentId).cronRuns(agentId, c.req.param("jobId"))) });
  });
