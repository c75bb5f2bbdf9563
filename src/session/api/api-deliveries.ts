import { z } from "zod";

/**
 * What a delivery hands over (SPEC §16): a sub-agent completion, a channel post, a watch notice, and (ours,
 * SPEC §22) a signed outbound webhook: a run's outcome, a cron job's or a hook's delivery.
 */
export const DELIVERY_KINDS = ["completion", "announce", "reply", "notice", "webhook"] as const;
export type DeliveryKind = (typeof DELIVERY_KINDS)[number];

export const DELIVERY_STATUSES = [
  "pending",
  "in_progress",
  "delivered",
  "not_required",
  "failed",
  "suspended",
  "dismissed",
] as const;
/** Where a delivery stands (SPEC §16). `in_progress`: handed to the Queue, its consumer reports back. */
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** The statuses an operator may start a new attempt series from (`POST /v1/deliveries/{id}/retry`). */
export const RETRYABLE_STATUSES: readonly DeliveryStatus[] = ["suspended", "failed", "dismissed"];
/** The statuses an operator may dismiss (`POST /v1/deliveries/{id}/dismiss`). */
export const DISMISSABLE_STATUSES: readonly DeliveryStatus[] = ["pending", "suspended", "failed"];

/** A delivery record as callers see it (SPEC §16), on the producing session's side. */
export interface DeliveryRecord {
  deliveryId: string;
  kind: DeliveryKind;
  runId?: string;
  sessionKey: string;
  /** Who it is for: a session key, a watcher's key, or a channel address `channel:to[#thread]`. */
  target: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt?: number;
  lastError?: string;
  /** A platform post split in parts (SPEC §21): how many parts are out; a retry sends the rest. */
  partsSent?: number;
  createdAt: number;
  updatedAt: number;
}

/**
 * What the Queue's consumer reports of one attempt at a channel post: `delivered`; `retry` (a transient
 * failure: the answer says when, or that the deadline passed); `failed` (never going to work);
 * `dead_letter` (the dead-letter queue's consumer: the Queue gave up, so the record is suspended).
 */
export const deliveryReportSchema = z.object({
  outcome: z.enum(["delivered", "retry", "failed", "dead_letter"]),
  error: z.string().max(2000).optional(),
  /** The platform's own time to try again at (a 429's retry_after), ms since the epoch. */
  retryAt: z.number().optional(),
  /** How many parts of a split post are out so far, counted from the first. */
  partsSent: z.number().int().min(0).optional(),
});
export type DeliveryReport = z.infer<typeof deliveryReportSchema>;

/** The answer to a report: retry after `retryInSeconds`, or stop (the record is settled). */
export type DeliveryReportAnswer = { retryInSeconds: number } | { settled: DeliveryStatus };

const ERROR_CHARS = 500;

/**
 * An error as the ledger keeps and shows it: cut, and with any URL taken out (a channel's webhook URL
 * can carry its secret in the path, and a fetch error may quote it).
 */
export function ledgerError(error: string): string {
  return error.replace(/\bhttps?:\/\/\S+/gi, "<url>").slice(0, ERROR_CHARS);
}
