import { z } from "zod";
import { jobPatchSchema, jobSchema, runSchema } from "../cron/job-schema";
import { createCronJobSchema, cronQuerySchema } from "../routes/v1/cron";
import type { RouteDoc } from "./types";

const WHO =
  "The operator token acts for any agent (`agentId` required); an agent token for its own (naming another is 403); run and grant tokens are refused (403). An unknown agent is a 400 naming `agentId`.";

const query: Record<keyof typeof cronQuerySchema.shape, string> = {
  agentId: "The agent whose jobs these are (an agent token's own by default).",
};

const jobExample = {
  jobId: "weekday-deploys",
  name: "Weekday deploy summary",
  agentId: "main",
  enabled: true,
  schedule: { kind: "cron", expr: "0 9 * * 1-5", tz: "Europe/Berlin" },
  sessionTarget: "isolated",
  payload: { kind: "agentTurn", message: "Summarize yesterday's deploys." },
  delivery: { mode: "announce", channel: "slack-ops", to: "C0123OPS" },
  deleteAfterRun: false,
  source: "api",
  createdAt: 1767225600000,
  nextRunAt: 1767254400000,
};

const { source: _source, createdAt: _created, nextRunAt: _next, ...createExample } = jobExample;

const runExample = {
  runId: "0f3c9a52-6d1e-8b4a-9c7d-2e5f1a0b3c4d",
  sessionKey: "agent:main:cron:weekday-deploys:run:0f3c9a52-6d1e-8b4a-9c7d-2e5f1a0b3c4d",
  scheduledAt: 1767254400000,
  startedAt: 1767254400120,
  endedAt: 1767254412480,
  status: "ok",
  durationMs: 12360,
  deliveryStatus: "delivered",
};

const jobParam = { jobId: "The job's id." };
const jobResponse = (status: number, description: string) => ({
  status,
  description,
  schema: jobSchema,
  name: "CronJob",
  example: jobExample,
});

/** SPEC §22's cron jobs over REST: the `cron` tool's bodies and answers. */
export const cronRouteDocs: RouteDoc[] = [
  {
    method: "GET",
    path: "/v1/cron/jobs",
    operationId: "listCronJobs",
    summary: "List an agent's jobs",
    description: `Every job of the agent, configured (\`source: "config"\`) and made by the tool or REST (\`"api"\`). ${WHO}`,
    tag: "Cron",
    auth: "bearer",
    query,
    querySchema: cronQuerySchema,
    responses: [
      {
        status: 200,
        description: "The jobs.",
        schema: z.object({ jobs: z.array(jobSchema) }),
        example: { jobs: [jobExample] },
      },
    ],
    errors: [400, 401, 403, 500],
  },
  {
    method: "POST",
    path: "/v1/cron/jobs",
    operationId: "createCronJob",
    summary: "Add a job",
    description: `An invalid expression, zone, an interval under 60 s, an unknown agent or target, a webhook URL outside \`webhooks.allowedOrigins\`, or a 201st job of an agent is a 400 naming the field; nothing is stored. A taken \`jobId\` is 409. ${WHO}`,
    tag: "Cron",
    auth: "bearer",
    body: {
      name: "CreateCronJobBody",
      schema: createCronJobSchema,
      example: createExample,
    },
    responses: [jobResponse(201, "The job, with its next run.")],
    errors: [400, 401, 403, 409, 500],
  },
  {
    method: "GET",
    path: "/v1/cron/jobs/:jobId",
    operationId: "getCronJob",
    summary: "Read a job",
    description: WHO,
    tag: "Cron",
    auth: "bearer",
    pathParams: jobParam,
    query,
    querySchema: cronQuerySchema,
    responses: [jobResponse(200, "The job.")],
    errors: [400, 401, 403, 404, 500],
  },
  {
    method: "PATCH",
    path: "/v1/cron/jobs/:jobId",
    operationId: "updateCronJob",
    summary: "Change a job",
    description: `Any field but its id and agent; the job is checked as a whole again. A configured job is changed in \`cron.jobs\` only (409). ${WHO}`,
    tag: "Cron",
    auth: "bearer",
    pathParams: jobParam,
    query,
    querySchema: cronQuerySchema,
    body: { name: "UpdateCronJobBody", schema: jobPatchSchema, example: { enabled: false } },
    responses: [jobResponse(200, "The job as changed.")],
    errors: [400, 401, 403, 404, 409, 500],
  },
  {
    method: "DELETE",
    path: "/v1/cron/jobs/:jobId",
    operationId: "deleteCronJob",
    summary: "Remove a job",
    description: `The job and its runs' history. A configured job is removed from \`cron.jobs\` only (409). ${WHO}`,
    tag: "Cron",
    auth: "bearer",
    pathParams: jobParam,
    query,
    querySchema: cronQuerySchema,
    responses: [
      {
        status: 200,
        description: "Removed.",
        schema: z.object({ status: z.literal("ok"), removed: z.literal(true) }),
        example: { status: "ok", removed: true },
      },
    ],
    errors: [400, 401, 403, 404, 409, 500],
  },
  {
    method: "POST",
    path: "/v1/cron/jobs/:jobId/run",
    operationId: "runCronJob",
    summary: "Run a job now",
    description: `Fires the job now, outside its schedule; answered once its target has the run. ${WHO}`,
    tag: "Cron",
    auth: "bearer",
    pathParams: jobParam,
    query,
    querySchema: cronQuerySchema,
    responses: [
      {
        status: 200,
        description: "The run is enqueued.",
        schema: z.object({ ok: z.literal(true), enqueued: z.literal(true), runId: z.string() }),
        example: { ok: true, enqueued: true, runId: runExample.runId },
      },
    ],
    errors: [400, 401, 403, 404, 500],
  },
  {
    method: "GET",
    path: "/v1/cron/jobs/:jobId/runs",
    operationId: "listCronRuns",
    summary: "A job's runs",
    description: `The last runs (50 kept per job), newest first, with status (\`running | ok | error | timeout | killed\`), duration and the delivery's status. ${WHO}`,
    tag: "Cron",
    auth: "bearer",
    pathParams: jobParam,
    query,
    querySchema: cronQuerySchema,
    responses: [
      {
        status: 200,
        description: "The runs.",
        schema: z.object({ runs: z.array(runSchema) }),
        example: { runs: [runExample] },
      },
    ],
    errors: [400, 401, 403, 404, 500],
  },
];
