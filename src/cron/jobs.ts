import type { AgentApi, CronResult } from "../agent-object/client";
import { findAgent } from "../config/agents";
import type { SwitchboardConfig } from "../config/schema";
import { AppError } from "../errors";
import type { SessionApi } from "../session/api";
import { checkJobAgainstConfig } from "./check-job";
import {
  type CronJob,
  completeJob,
  type JobDefinition,
  type JobInput,
  type JobPatch,
  patchJob,
} from "./job-schema";

/** What the tool and REST share to manage jobs: the configuration and the objects. */
export interface CronDeps {
  config: SwitchboardConfig;
  agent: (agentId: string) => AgentApi;
  session: (sessionKey: string) => SessionApi;
}

const badRequest = (message: string): CronResult<never> => ({ ok: false, code: "bad_request", message });

/** The definition part of a job as answered. */
function definitionOf(job: CronJob): JobDefinition {
  const { source: _source, createdAt: _created, nextRunAt: _next, lastRunAt: _last, ...definition } = job;
  return definition;
}

/** The agent a call acts for, refused (naming `agentId`) when it is not configured. */
export function knownAgent(config: SwitchboardConfig, agentId: string): CronResult<string> {
  return findAgent(config, agentId)
    ? { ok: true, value: agentId }
    : badRequest(`agentId: unknown agent "${agentId}"`);
}

/**
 * A definition checked before it is stored (SPEC §22): the configuration's checks (agent, target,
 * channel, webhook origin), then a `session:<key>` target that exists.
 */
async function checked(deps: CronDeps, job: JobDefinition): Promise<CronResult<JobDefinition>> {
  let targetKey: string | undefined;
  try {
    targetKey = checkJobAgainstConfig(deps.config, job);
  } catch (error) {
    if (error instanceof AppError) return badRequest(error.message);
    throw error;
  }
  if (targetKey && !(await deps.session(targetKey).describe()).ok)
    return badRequest(`sessionTarget: session ${targetKey} not found`);
  return { ok: true, value: job };
}

/** `add`: a new job of `agentId` (an id is made when none is given). */
export async function addCronJob(
  deps: CronDeps,
  agentId: string,
  input: JobInput,
): Promise<CronResult<CronJob>> {
  const jobId = input.jobId ?? `job-${crypto.randomUUID().slice(0, 8)}`;
  const job = await checked(deps, completeJob(input, jobId, agentId));
  return job.ok ? deps.agent(agentId).cronAdd(job.value) : job;
}

/** `update`: a patch of a job, checked as a whole again. */
export async function updateCronJob(
  deps: CronDeps,
  agentId: string,
  jobId: string,
  patch: JobPatch,
): Promise<CronResult<CronJob>> {
  const current = await deps.agent(agentId).cronGet(agentId, jobId);
  if (!current.ok) return current;
  const job = await checked(deps, patchJob(definitionOf(current.value), patch));
  return job.ok ? deps.agent(agentId).cronReplace(job.value) : job;
}
