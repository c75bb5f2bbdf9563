import { z } from "zod";
import { collectorResultSchema } from "../session/api";

// What the tools that start or follow runs answer (results.ts has the others and the failure shape).
// Their failures carry more than ToolFailure (a runId, an action), so each says its own.

const delivery = z
  .object({ status: z.enum(["pending", "skipped"]), mode: z.literal("announce") })
  .describe("whether an announce step follows (SPEC §14)");

/** sessions_send (SPEC §5.3, §14): accepted, the reply it waited for, or why there is none. */
export const sessionsSendResultSchema = z.object({
  runId: z.string(),
  status: z.enum(["accepted", "ok", "no_reply", "timeout", "error", "forbidden"]),
  sessionKey: z.string().optional().describe("the target, when the caller may see its key"),
  reply: z.string().optional().describe("`ok`: the run's reply"),
  message: z.string().optional().describe("`no_reply`: what to do next"),
  error: z.string().optional(),
  targetDisposition: z.enum(["queued", "steered"]).optional(),
  delivery: delivery.optional(),
  sentBeforeError: z.literal(true).optional().describe("the message is in the target all the same"),
  runStatus: z.enum(["queued", "running"]).optional().describe("`timeout`: where the run is"),
  watched: z.boolean().optional().describe("with `watch`: whether the caller now watches the target"),
});

/** sessions_spawn (SPEC §5.4, §15): the child and its run, accepted. */
export const sessionsSpawnResultSchema = z.object({
  status: z.literal("accepted"),
  childSessionKey: z.string(),
  runId: z.string(),
  mode: z.string(),
  note: z
    .string()
    .optional()
    .describe("absent for a cron run's spawn (SPEC §5, §22): it waits for its child"),
  expectsCompletionMessage: z.boolean(),
  collect: z.literal(true).optional(),
  groupId: z.string().optional(),
  context: z.string(),
  resolvedModel: z.string().optional(),
  modelApplied: z.boolean(),
  attachments: z
    .object({
      count: z.number().int().optional(),
      totalBytes: z.number().int().optional(),
      files: z.array(z.object({ name: z.string(), bytes: z.number().int(), sha256: z.string() })),
      relDir: z.string(),
    })
    .optional(),
});

/** A sub-agent as `subagents list` shows it. */
const subagentItemSchema = z.looseObject({
  index: z.number().int(),
  runId: z.string().optional(),
  sessionKey: z.string(),
  label: z.string().optional(),
  status: z.string(),
});

/** subagents (SPEC §5.6, §15): list, kill, cancel, steer or wait, each with its own fields. */
export const subagentsResultSchema = z.object({
  status: z.enum(["ok", "accepted", "error", "forbidden", "rate_limited"]),
  action: z.string().optional(),
  error: z.string().optional(),
  text: z.string().optional().describe("the answer as a model reads it"),
  requesterSessionKey: z.string().optional(),
  callerSessionKey: z.string().optional(),
  callerIsSubagent: z.boolean().optional(),
  total: z.number().int().optional(),
  active: z.array(subagentItemSchema).optional().describe("`list`: running"),
  recent: z.array(subagentItemSchema).optional().describe("`list`: ended within recentMinutes"),
  killed: z.number().int().optional(),
  labels: z.array(z.string()).optional(),
  runId: z.string().optional(),
  sessionKey: z.string().optional(),
  mode: z.string().optional(),
  reason: z.string().optional().describe("`wait`: why it returned"),
  runs: z.array(z.looseObject({ runId: z.string(), status: z.string() })).optional(),
  completed: z.array(z.string()).optional(),
  attention: z.array(z.string()).optional(),
  unavailable: z.array(z.string()).optional(),
});

/** agents_wait (SPEC §15): the collectors' results as they arrived, and those still pending. */
export const agentsWaitResultSchema = z.object({
  completed: z.array(collectorResultSchema.extend({ sessionKey: z.string(), label: z.string().optional() })),
  pending: z.array(z.string()),
  errors: z.array(z.object({ runId: z.string(), error: z.enum(["not_found", "not_owner"]) })).optional(),
  success: z.literal(false).optional().describe("every id failed"),
  truncated: z.literal(true).optional(),
  omitted: z.array(z.string()).optional().describe("completed runs left out to fit; ask for them again"),
});
