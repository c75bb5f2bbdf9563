import { Cron } from "croner";
import { z } from "zod";
import { parseAt } from "./at-time";

/** SPEC §22: an `every` job runs at most once a minute. */
export const MIN_EVERY_MS = 60_000;
/** SPEC §22: at most this many jobs per agent. */
export const MAX_JOBS_PER_AGENT = 200;
/** A job id: what its run sessions' keys carry (`agent:<id>:cron:<jobId>:run:<runId>`). */
export const JOB_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** True for an IANA zone this runtime knows (`Europe/Berlin`, `UTC`). */
export function isKnownZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Why a five-field cron expression is refused, or undefined: croner parses it (never our own parser). */
export function cronExpressionProblem(expr: string): string | undefined {
  if (expr.trim().split(/\s+/).length !== 5) return "must have five fields (minute hour day month weekday)";
  try {
    new Cron(expr, { paused: true });
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message.replace(/^CronPattern: /, "") : "invalid expression";
  }
}

const zone = z
  .string()
  .trim()
  .min(1)
  .refine(isKnownZone, { message: "unknown IANA time zone" })
  .describe("an IANA time zone, e.g. Europe/Berlin");

const atSchedule = z
  .strictObject({
    kind: z.literal("at"),
    at: z
      .union([z.string().trim().min(1), z.number().int().nonnegative()])
      .describe("ISO-8601 or epoch ms; without an offset, UTC unless tz is given"),
    tz: zone.optional(),
  })
  .superRefine((schedule, ctx) => {
    if (parseAt(schedule.at, schedule.tz) === undefined)
      ctx.addIssue({ code: "custom", path: ["at"], message: "not an ISO-8601 time or epoch milliseconds" });
  });

const everySchedule = z.strictObject({
  kind: z.literal("every"),
  everyMs: z
    .number()
    .int()
    .min(MIN_EVERY_MS, { message: `at least ${MIN_EVERY_MS} (one minute)` }),
});

const cronSchedule = z
  .strictObject({
    kind: z.literal("cron"),
    expr: z.string().trim().min(1).describe("five fields: minute hour day month weekday"),
    tz: zone.optional(),
  })
  .superRefine((schedule, ctx) => {
    const problem = cronExpressionProblem(schedule.expr);
    if (problem) ctx.addIssue({ code: "custom", path: ["expr"], message: problem });
  });

/** When a job runs (SPEC §22). */
export const scheduleSchema = z.discriminatedUnion("kind", [atSchedule, everySchedule, cronSchedule]);
export type Schedule = z.infer<typeof scheduleSchema>;

/** `isolated` (a fresh session per run), `main` (the agent's main session) or `session:<key>`. */
export const sessionTargetSchema = z
  .string()
  .trim()
  .min(1)
  .refine((target) => target === "isolated" || target === "main" || /^session:.+/.test(target), {
    message: 'must be "isolated", "main" or "session:<key>"',
  });

/** What a run does: a turn, or a system line (a run only with `wake: "now"`). */
export const payloadSchema = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("agentTurn"), message: z.string().trim().min(1).max(100_000) }),
  z.strictObject({
    kind: z.literal("systemEvent"),
    text: z.string().trim().min(1).max(100_000),
    wake: z.enum(["now", "next"]).optional(),
  }),
]);
export type CronPayload = z.infer<typeof payloadSchema>;

/** Where a run's outcome goes, through the ledger (SPEC §16). */
export const deliverySchema = z.discriminatedUnion("mode", [
  z.strictObject({
    mode: z.literal("announce"),
    channel: z.string().trim().min(1).optional(),
    to: z.string().trim().min(1).optional(),
  }),
  z.strictObject({ mode: z.literal("webhook"), url: z.url() }),
  z.strictObject({ mode: z.literal("none") }),
]);
export type CronDelivery = z.infer<typeof deliverySchema>;

/** The fields a caller sets (tool `add`, REST `POST`); defaults are applied by `completeJob`. */
export const jobInputShape = {
  jobId: z
    .string()
    .trim()
    .toLowerCase()
    .regex(JOB_ID_PATTERN, "lower-case letters, digits, _ and -")
    .optional(),
  name: z.string().trim().min(1).max(200).optional(),
  agentId: z.string().trim().toLowerCase().min(1).optional(),
  enabled: z.boolean().optional(),
  schedule: scheduleSchema,
  sessionTarget: sessionTargetSchema.optional(),
  payload: payloadSchema,
  delivery: deliverySchema.optional(),
  deleteAfterRun: z.boolean().optional(),
};
export const jobInputSchema = z.strictObject(jobInputShape);
export type JobInput = z.infer<typeof jobInputSchema>;

/** A patch (tool `update`, REST `PATCH`): any field but the job's id and agent. */
export const jobPatchSchema = z.strictObject({
  name: jobInputShape.name,
  enabled: jobInputShape.enabled,
  schedule: scheduleSchema.optional(),
  sessionTarget: jobInputShape.sessionTarget,
  payload: payloadSchema.optional(),
  delivery: jobInputShape.delivery,
  deleteAfterRun: jobInputShape.deleteAfterRun,
});
export type JobPatch = z.infer<typeof jobPatchSchema>;

/** A job as it is kept and run: every field set. */
export interface JobDefinition {
  jobId: string;
  name: string;
  agentId: string;
  enabled: boolean;
  schedule: Schedule;
  sessionTarget: string;
  payload: CronPayload;
  delivery: CronDelivery;
  deleteAfterRun: boolean;
}

/** A job as answered (SPEC §22): its definition, when it was made, when it runs next and last ran. */
export const jobSchema = z.object({
  jobId: z.string(),
  name: z.string(),
  agentId: z.string(),
  enabled: z.boolean(),
  schedule: scheduleSchema,
  sessionTarget: z.string(),
  payload: payloadSchema,
  delivery: deliverySchema,
  deleteAfterRun: z.boolean(),
  /** `config` for a job of `cron.jobs` (changed only there), `api` for the tool's and REST's. */
  source: z.enum(["config", "api"]),
  createdAt: z.number(),
  nextRunAt: z.number().nullable(),
  lastRunAt: z.number().optional(),
});
export type CronJob = z.infer<typeof jobSchema>;

export const runStatuses = ["running", "ok", "error", "timeout", "killed"] as const;

/** One run of a job, as `runs` lists it. */
export const runSchema = z.object({
  runId: z.string(),
  sessionKey: z.string(),
  scheduledAt: z.number(),
  startedAt: z.number().optional(),
  endedAt: z.number().optional(),
  status: z.enum(runStatuses),
  durationMs: z.number().optional(),
  deliveryStatus: z.string().optional(),
  error: z.string().optional(),
});
export type CronRun = z.infer<typeof runSchema>;

/** The defaults of SPEC §22 applied: an isolated target, announce for isolated runs, deleteAfterRun for `at`. */
export function completeJob(input: JobInput, jobId: string, agentId: string): JobDefinition {
  const sessionTarget = input.sessionTarget ?? "isolated";
  return {
    jobId,
    name: input.name ?? jobId,
    agentId,
    enabled: input.enabled ?? true,
    schedule: input.schedule,
    sessionTarget,
    payload: input.payload,
    delivery: input.delivery ?? (sessionTarget === "isolated" ? { mode: "announce" } : { mode: "none" }),
    deleteAfterRun: input.deleteAfterRun ?? input.schedule.kind === "at",
  };
}

/** A patch applied to a definition (its id and agent stay). */
export function patchJob(job: JobDefinition, patch: JobPatch): JobDefinition {
  const defined = Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined));
  return { ...job, ...defined };
}
