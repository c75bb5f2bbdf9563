/**
 * The collector types that cross the session object's RPC boundary (SPEC §15): a requester admits its
 * collector children, keeps their results and answers agents_wait from them.
 */
import { z } from "zod";

/** The caps of a collector's group, from its requester's `tools.swarm` at spawn time. */
export interface CollectorCaps {
  maxConcurrent: number;
  maxChildrenPerGroup: number;
  maxTotalPerGroup: number;
}

/** A collector as admitted: `duplicate` when this runId was admitted before (nothing written). */
export interface AdmittedCollector {
  state: "queued" | "running" | "ended";
  duplicate: boolean;
}

/** What a collector child's run end hands its requester: a record, never a turn. */
export const collectorResultSchema = z.object({
  runId: z.string(),
  status: z.enum(["done", "failed", "killed", "timeout"]),
  /** The child's raw final text ("" when it gave none). */
  result: z.string(),
  structured: z.unknown().optional(),
  error: z.string().optional(),
  schemaError: z.string().optional(),
  usage: z.object({ inputTokens: z.number(), outputTokens: z.number() }).optional(),
});
export type CollectorResult = z.infer<typeof collectorResultSchema>;

/** How a collector run ended, as agents_wait reports it. */
export type CollectorStatus = CollectorResult["status"];

/** The outbox payload that carries a result to the requester; a `cleanup: "delete"` child goes afterwards. */
export const collectorResultDeliverySchema = z.object({
  requesterKey: z.string(),
  result: collectorResultSchema,
  afterwards: z.literal("remove_session").optional(),
});

/** One ended collector run as agents_wait reports it, with its order of arrival at the requester. */
export interface CollectorOutcome extends CollectorResult {
  sessionKey: string;
  label?: string;
  endedAt: number;
  completedSeq: number;
}

/** The requested runs this requester holds: ended (in arrival order), still pending, and those it never admitted. */
export interface CollectorSnapshot {
  completed: CollectorOutcome[];
  pending: string[];
  unknown: string[];
}
