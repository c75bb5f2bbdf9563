/**
 * Turns as they cross the session's RPC boundary: the request, its exchange, its delivery, its handoff.
 * Part of the public face: re-exported by api/index.ts, which is what code outside src/session/ imports.
 */
import { z } from "zod";
import { type Provenance, provenanceSchema } from "../../transcript/message";
import { deliveryContextSchema, replyTargetSchema } from "../record/record";
import type { RunStatus } from "./api-runs";

/** What happens after a run of an agent-to-agent exchange ends (src/messaging/reply-flow.ts). */
export const replyFlowSchema = z.object({
  flowId: z.string(),
  requesterKey: z.string(),
  targetKey: z.string(),
  originalMessage: z.string(),
  maxTurns: z.number().int().min(0),
  stepTimeoutMs: z.number().int().positive(),
  hop: z.number().int().min(0),
  stage: z.enum(["request", "ping", "announce"]),
  /** The ping turn this run answers (1-based); 0 for the request. */
  turn: z.number().int().min(0),
  round1Reply: z.string().optional(),
  latestReply: z.string().optional(),
  /** No announce step ends this exchange: the requester or the target is a sub-agent (SPEC §14). */
  skipAnnounce: z.literal(true).optional(),
});
export type ReplyFlow = z.infer<typeof replyFlowSchema>;

/**
 * Where a run's outcome is POSTed, signed, when it ends (SPEC §22): a run webhook, a hook's delivery
 * (`hook` names it: the hook's body shape) or a cron job's (`jobId`: the job's body shape). The URL was
 * checked against allowedOrigins (src/webhooks/allowed-origin.ts).
 */
export const runWebhookSchema = z.object({
  url: z.string(),
  hook: z.string().optional(),
  jobId: z.string().optional(),
});
export type RunWebhook = z.infer<typeof runWebhookSchema>;

/** A turn for a session: the inbound message, and what to do after its run. */
export const turnRequestSchema = z.object({
  /** Chosen by the caller, so a redelivered request finds the same run. */
  runId: z.string().min(1),
  dedupeKey: z.string().optional(),
  message: z.object({ id: z.string().optional(), text: z.string(), provenance: provenanceSchema }),
  /** Context of our own for the runtime (agent-to-agent roles, reply-step instructions). */
  context: z.string().optional(),
  timeoutMs: z.number().int().positive().optional(),
  flow: replyFlowSchema.optional(),
  /** Where the run's reply is posted (a channel's inbound message). */
  replyTo: replyTargetSchema.optional(),
  /** Post the reply to the session's own announce target (a completion); never for a sub-agent. */
  replyToOwnChannel: z.boolean().optional(),
  /**
   * With `replyToOwnChannel`: a thread-bound child's completion (SPEC §21), whose update goes into the
   * child's thread instead, the requester's own chat left as it is.
   */
  replyToThread: deliveryContextSchema.optional(),
  /**
   * A collector member's run waiting for a running slot of its group (SPEC §15): queued but not
   * runnable until its requester releases it (SessionApi.releaseRun).
   */
  held: z.literal(true).optional(),
  /** Where the run's outcome is POSTed when it ends (SPEC §22 run webhooks, hook deliveries). */
  webhook: runWebhookSchema.optional(),
  /**
   * The turn is for this session of the key only (SPEC §23 "Generations"): a later session under the
   * key, the one it was made for deleted, answers as a deleted one does (not found).
   */
  forSessionId: z.string().optional(),
});
export type TurnRequest = z.infer<typeof turnRequestSchema>;

/**
 * A turn owed to another session: sends, reply-back steps, announce steps and sub-agent completions
 * all travel as one. It goes to the first of `targets` that still exists (a completion's lineage).
 */
export const turnDeliverySchema = z.object({
  targets: z.array(z.string()).min(1),
  request: turnRequestSchema,
  /**
   * The session of the first target the turn was made for (a completion's requester, SPEC §23): gone,
   * or replaced by a later session of its key, the turn goes on to the next target.
   */
  targetSessionId: z.string().optional(),
  /** After the turn is delivered: the sending session deletes itself (a `cleanup: "delete"` child). */
  afterwards: z.literal("remove_session").optional(),
  /** Carried by the Queue (a fire-and-forget send) from this sending session, not delivered directly. */
  viaQueue: z.object({ sourceKey: z.string() }).optional(),
});
export type TurnDelivery = z.infer<typeof turnDeliverySchema>;

/** A handoff to another session recorded in the sender (`sent`): a send's target, or a spawn's child. */
export interface SentRecord {
  runId: string;
  targetKey: string;
  turn?: TurnRequest;
}

/** What a sender records before it hands a turn on: under its idempotency key, and/or for the Queue. */
export interface SendRecordRequest extends SentRecord {
  /** `<tool>:<key>`: a repeat finds the first handoff, whatever target it names. */
  idempotencyKey?: string;
  /** The turn goes on the Queue from this session: owed through the outbox until the caller says it is there. */
  viaQueue?: { sourceKey: string };
}

/** A turn as accepted: its run, and whether it had been accepted before (then nothing was written). */
export interface AcceptedTurn {
  runId: string;
  status: RunStatus;
  duplicate: boolean;
}

/** A message steered into a session's active run (sessions_send mode=steer), as appended there. */
export interface SteerMessage {
  id?: string;
  text: string;
  provenance: Provenance;
}
