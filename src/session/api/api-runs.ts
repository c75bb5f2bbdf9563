/**
 * Runs as callers see them across the session's RPC boundary: records, progress, history pages. Part of
 * the public face: re-exported by api/index.ts, which is what code outside src/session/ imports.
 */
import { z } from "zod";
import type { Requester } from "../../policy/requester";
import type { VisibilityConfig } from "../../policy/visibility";
import type { RunUsage } from "../../runtimes/types";
import type { DeliveryStatus } from "./api-deliveries";

export const runStatuses = ["queued", "running", "ok", "error", "timeout", "killed"] as const;
export type RunStatus = (typeof runStatuses)[number];
export const ENDED_STATUSES: ReadonlySet<RunStatus> = new Set(["ok", "error", "timeout", "killed"]);

/** The public view of a run (`GET /v1/runs/{runId}`; the OpenAPI document shows this schema). */
export const runRecordSchema = z.object({
  runId: z.string(),
  sessionKey: z.string(),
  status: z.enum(runStatuses),
  /** A webhook agent answered 202 and posts its result later. */
  deferred: z.boolean(),
  createdAt: z.number().describe("ms since the epoch"),
  startedAt: z.number().optional(),
  endedAt: z.number().optional(),
  usage: z
    .object({
      input: z.number(),
      output: z.number(),
      total: z.number(),
      cacheRead: z.number().optional().describe("input tokens read from the provider's prompt cache"),
      cacheWrite: z.number().optional().describe("input tokens written to the provider's prompt cache"),
      estimatedCostUsd: z
        .number()
        .optional()
        .describe("USD by the answering runtime's pricing; absent without pricing"),
      lastCallTokens: z.number().optional(),
    })
    .optional()
    .describe("tokens, summed over the run's model calls") satisfies z.ZodType<RunUsage | undefined>,
  /** The model and provider that answered (a fallback's when one did; SPEC §20). */
  model: z.string().optional(),
  provider: z.string().optional(),
  reply: z.string().optional(),
  error: z.string().optional(),
  attempts: z.number().int(),
  retries: z.array(z.string()).describe("why each earlier attempt was retried"),
  /** An ended collector run's recorded structured_output result (SPEC §15). */
  structured: z.unknown().optional(),
  /** Why an ended collector run with an outputSchema has no valid result (it then ended `error`). */
  schemaError: z.string().optional(),
});
export type RunRecord = z.infer<typeof runRecordSchema>;

/**
 * A run as `subagents` sees it (SPEC §15): a run that yielded is `waiting` and is followed to the
 * session's later run, whose end is the outcome.
 */
export interface RunProgress {
  runId: string;
  sessionKey: string;
  label: string;
  status: "running" | "waiting" | "done" | "failed" | "timeout" | "killed";
  outcome?: { status: "ok" | "error" | "timeout" | "killed"; error?: string };
  deliveryStatus: DeliveryStatus;
  startedAt: number;
  endedAt?: number;
}

/** True while a run's work goes on: it runs, or waits for its children. */
export const isUnderway = (progress: RunProgress): boolean =>
  progress.status === "running" || progress.status === "waiting";

export interface HistoryRequest {
  limit: number;
  offset: number;
  includeTools: boolean;
}

export interface HistoryPage {
  /** The page's messages, oldest first, made safe: one JSON array, as stored (never parsed on the way). */
  messagesJson: string;
  droppedMessages: boolean;
  contentTruncated: boolean;
  contentRedacted: boolean;
  bytes: number;
  hasMore: boolean;
  nextOffset?: number;
  totalMessages: number;
  /** The page reaches messages `maxMessages` trimmed away (SPEC §23): only when it does. */
  historyGap?: true;
}

/** The exact view's page (operator only): stored messages as they are, oldest first, by seq. */
export interface ExactPage {
  lines: string[];
  firstSeq: number;
  lastSeq: number;
  /** Older messages exist before `firstSeq`. */
  hasOlder: boolean;
}

/** Who reads a session (its history page, its status), for the session's own visibility check (SPEC §4). */
export interface Viewer {
  requester: Requester;
  visibility: VisibilityConfig;
}

/** A webhook agent's result, posted after its 202. */
export interface DeferredResult {
  text: string;
  usage?: RunUsage;
}
