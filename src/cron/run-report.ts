import { z } from "zod";

/** The dedupe key of a cron slot's turn in its target (SPEC §22): a slot is accepted there once. */
export const cronSlotKey = (jobId: string, scheduledAt: number) => `cron:${jobId}:${scheduledAt}`;

/** True for the dedupe key of a cron slot's turn. */
export const isCronSlotKey = (dedupeKey: string | undefined) => dedupeKey?.startsWith("cron:") === true;

/**
 * A cron run's end, owed by its target session to the agent's scheduler through the outbox (as
 * `agent_usage` is): its status and times for `runs`, its reply for a webhook, the backoff.
 */
export const cronRunReportSchema = z.object({
  agentId: z.string(),
  runId: z.string(),
  sessionKey: z.string(),
  status: z.enum(["ok", "error", "timeout", "killed"]),
  startedAt: z.number().optional(),
  endedAt: z.number(),
  reply: z.string().optional(),
  error: z.string().optional(),
  /** `pending` (its announce is in the ledger as `deliveryId`), `not_required`, or `none` (no announce). */
  deliveryStatus: z.string(),
  deliveryId: z.string().optional(),
});
export type CronRunReport = z.infer<typeof cronRunReportSchema>;
