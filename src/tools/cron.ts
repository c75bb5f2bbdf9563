import { z } from "zod";
import type { CronResult } from "../agent-object/client";
import { jobInputSchema, jobPatchSchema } from "../cron/job-schema";
import { addCronJob, type CronDeps, updateCronJob } from "../cron/jobs";
import { defineTool, type ToolContext } from "./types";

const schema = z.object({
  action: z.enum(["add", "list", "update", "remove", "run", "runs"]),
  job: jobInputSchema.optional().describe("add: the job (schedule, payload; sessionTarget, delivery, name…)"),
  jobId: z.string().trim().toLowerCase().min(1).optional().describe("update, remove, run, runs: the job"),
  patch: jobPatchSchema.optional().describe("update: the fields to change"),
});

const failure = (result: Extract<CronResult<unknown>, { ok: false }>) => ({
  status: "error",
  error: result.message,
});

function deps(ctx: ToolContext): CronDeps {
  return { config: ctx.config, agent: ctx.agent, session: ctx.session };
}

/**
 * SPEC §22's `cron` tool (OpenClaw's): the caller's agent's scheduled jobs, in the `coding` and `full`
 * profiles and never offered to sub-agents (src/policy/tool-profiles.ts). The operator manages any
 * agent's jobs by acting as a session of that agent.
 */
export const cron = defineTool({
  name: "cron",
  description:
    'Schedule work for your agent: add a job (schedule {kind:"at",at} | {kind:"every",everyMs>=60000} | {kind:"cron",expr,tz?}; payload {kind:"agentTurn",message} | {kind:"systemEvent",text}; sessionTarget isolated|main|session:<key>; delivery announce|webhook|none), list, update, remove, run it now, or read its runs.',
  schema,
  async handler(ctx, params) {
    const agentId = ctx.requester.agentId;
    const jobAgent = params.job?.agentId;
    if (jobAgent !== undefined && jobAgent !== agentId)
      return { status: "forbidden", error: `agentId: the cron tool manages agent ${agentId}'s jobs only` };
    const agent = ctx.agent(agentId);
    if (params.action === "list") return { jobs: await agent.cronList(agentId) };
    if (params.action === "add") {
      if (!params.job) return { status: "error", error: "job required" };
      const added = await addCronJob(deps(ctx), agentId, params.job);
      return added.ok ? { status: "ok", job: added.value } : failure(added);
    }
    const jobId = params.jobId;
    if (!jobId) return { status: "error", error: "jobId required" };
    switch (params.action) {
      case "update": {
        const updated = await updateCronJob(deps(ctx), agentId, jobId, params.patch ?? {});
        return updated.ok ? { status: "ok", job: updated.value } : failure(updated);
      }
      case "remove": {
        const removed = await agent.cronRemove(agentId, jobId);
        return removed.ok ? { status: "ok", removed: true } : failure(removed);
      }
      case "run": {
        const ran = await agent.cronRun(agentId, jobId);
        return ran.ok ? { ok: true, enqueued: true, runId: ran.value.runId } : failure(ran);
      }
      case "runs": {
        const runs = await agent.cronRuns(agentId, jobId);
        return runs.ok ? { runs: runs.value } : failure(runs);
      }
    }
  },
});
