import { z } from "zod";
import type { ToolName } from "../config/schema";
import { jobSchema, runSchema } from "../cron/job-schema";
import { sessionRowSchema } from "../session/api";
import {
  agentsWaitResultSchema,
  sessionsSendResultSchema,
  sessionsSpawnResultSchema,
  subagentsResultSchema,
} from "./results-runs";

// What each tool answers, once: the OpenAPI document (a `/v1/tools/*` 200, `/tools/invoke`'s details)
// is generated from these, and test/openapi/live-answers.test.ts checks real answers against them.
// The tools' own params schemas live with each tool; see results-runs.ts for the tools that start runs.

/** A policy or lookup failure: a result answered with 200, never an HTTP error (SPEC §5.0). */
export const toolFailureSchema = z
  .object({
    status: z.enum(["error", "forbidden"]),
    error: z.string().describe("why, naming the setting that would allow it"),
  })
  .describe("A policy or lookup failure (ToolFailure), answered with 200");

/** A result, or the failure a tool may answer instead. */
export const orFailure = <Result extends z.ZodType>(result: Result) => z.union([result, toolFailureSchema]);

/** sessions_list (SPEC §5.1): a page of rows, newest activity first. Never a failure. */
export const sessionsListResultSchema = z.object({
  count: z.number().int().describe("rows on this page"),
  sessions: z.array(sessionRowSchema),
  hasMore: z.boolean(),
  limitApplied: z.number().int().describe("the page size used, after clamping `limit`"),
  nextCursor: z.string().optional().describe("pass as `cursor` for the next page"),
  nextOffset: z.number().int().optional().describe("pass as `offset` for the next page (not after a cursor)"),
});

/** A message of the safe view (SPEC §5.2): reasoning and tool payloads removed, secrets masked, cut. */
const safeMessageSchema = z.looseObject({
  id: z.string().optional(),
  role: z.string(),
  content: z.unknown().describe("a string, or content blocks"),
  timestamp: z.number().optional().describe("ms since the epoch"),
});

/** sessions_history (SPEC §5.2), and `GET /v1/sessions/{key}/history`. */
export const historyPageSchema = z.object({
  sessionKey: z.string().describe("the display key"),
  messages: z.array(safeMessageSchema).describe("oldest first"),
  truncated: z.boolean().describe("droppedMessages or contentTruncated"),
  droppedMessages: z.boolean().describe("older messages left out to fit the byte cap"),
  contentTruncated: z.boolean().describe("a text was cut"),
  contentRedacted: z.boolean().describe("a secret was masked"),
  bytes: z.number().int().describe("the messages' JSON size"),
  hasMore: z.boolean(),
  nextOffset: z.number().int().optional().describe("pass as `offset` for older messages"),
  totalMessages: z.number().int(),
  historyGap: z
    .literal(true)
    .optional()
    .describe("the page reaches older messages that retention (`maxMessages`) removed; only when it does"),
  // OpenClaw's field, being added beside this (src/session/api/pending-inputs.ts): its own schema belongs here.
  pendingInputs: z
    .object({
      items: z.array(z.looseObject({ runId: z.string(), state: z.string(), queuedAt: z.number() })),
      total: z.number().int(),
    })
    .optional()
    .describe("accepted messages whose runs have not started, oldest first"),
});

/** session_status (SPEC §5.7): the status card and the session's version. */
export const sessionStatusResultSchema = z.object({
  ok: z.literal(true),
  sessionKey: z.string(),
  agentId: z.string(),
  changedModel: z.boolean(),
  stateVersion: z.number().int().describe("the session's last event seq (SPEC §13)"),
  statusText: z.string().describe("the card, as a model reads it"),
  estimatedCostUsd: z
    .number()
    .optional()
    .describe("the session's runs' estimated cost in USD, summed (SPEC §20); absent without pricing"),
  stateChanges: z
    .looseObject({
      events: z.array(z.looseObject({ seq: z.number().int(), kind: z.string() })),
      truncated: z.boolean(),
      earliestAvailableSequence: z.number().int(),
      historyGap: z.boolean(),
    })
    .optional()
    .describe("with `changesSince`: the events after it"),
});

/** agents_list: the agents the caller may spawn. */
export const agentsListResultSchema = z.object({
  requester: z.string().describe("the caller's agent id"),
  allowAny: z.boolean(),
  agents: z.array(z.object({ id: z.string(), label: z.string().optional(), sandboxed: z.boolean() })),
});

/** sessions_yield. */
export const sessionsYieldResultSchema = z.object({
  status: z.literal("yielded"),
  message: z.string().describe("kept as hidden context"),
});

/** structured_output: the recorded result. */
export const structuredOutputResultSchema = z.looseObject({
  status: z.string().describe("`recorded`"),
});

/** sessions (SPEC §17): a patch, a scheduled archive, or a deletion. */
export const sessionsResultSchema = z.union([
  z.object({
    status: z.literal("updated"),
    sessionKey: z.string(),
    updated: z.array(z.string()).describe("the fields changed"),
  }),
  z.object({ status: z.literal("scheduled"), sessionKey: z.string(), message: z.string() }),
  z.object({ status: z.literal("deleted"), sessionKey: z.string() }),
]);

/** sessions_search: hits, newest index first. */
export const sessionsSearchResultSchema = z.object({
  results: z.array(
    z.object({
      sessionKey: z.string(),
      sessionId: z.string(),
      messageId: z.string(),
      role: z.string(),
      timestamp: z.number(),
      snippet: z.string().describe("made safe like sessions_history"),
      score: z.number(),
    }),
  ),
  truncated: z.literal(true).optional(),
  nextCursor: z.string().optional(),
  indexing: z.literal(true).optional(),
  warning: z.string().optional(),
});

/** cron (SPEC §22): a job, the jobs, a removal, a run started, or the runs. */
export const cronResultSchema = z
  .union([
    z.object({ status: z.literal("ok"), job: jobSchema }),
    z.object({ jobs: z.array(jobSchema) }),
    z.object({ status: z.literal("ok"), removed: z.literal(true) }),
    z.object({ ok: z.literal(true), enqueued: z.literal(true), runId: z.string() }),
    z.object({ runs: z.array(runSchema) }),
  ])
  .meta({
    examples: [
      {
        status: "ok",
        job: {
          jobId: "remind-standup",
          name: "remind-standup",
          agentId: "main",
          enabled: true,
          schedule: { kind: "at", at: "2026-12-01T09:00:00", tz: "Europe/Berlin" },
          sessionTarget: "isolated",
          payload: { kind: "agentTurn", message: "Remind me of the standup." },
          delivery: { mode: "announce" },
          deleteAfterRun: true,
          source: "api",
          createdAt: 1767225600000,
          nextRunAt: 1764576000000,
        },
      },
    ],
  });

/** Each tool's answer, failures included where it has them: the 200 of its `/v1/tools/{name}`. */
export const toolResultSchemas: Record<ToolName, z.ZodType> = {
  sessions_list: sessionsListResultSchema,
  sessions_history: orFailure(historyPageSchema),
  sessions_send: sessionsSendResultSchema,
  sessions_spawn: orFailure(sessionsSpawnResultSchema),
  sessions_yield: orFailure(sessionsYieldResultSchema),
  subagents: subagentsResultSchema,
  session_status: orFailure(sessionStatusResultSchema),
  agents_list: agentsListResultSchema,
  sessions: orFailure(sessionsResultSchema),
  structured_output: orFailure(structuredOutputResultSchema),
  sessions_search: orFailure(sessionsSearchResultSchema),
  agents_wait: agentsWaitResultSchema,
  cron: orFailure(cronResultSchema),
};
