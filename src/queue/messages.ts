import { z } from "zod";
import { provenanceSchema } from "../transcript/message";

const deliveryContextSchema = z.object({
  channel: z.string().min(1),
  to: z.string().min(1),
  accountId: z.string().optional(),
  threadId: z.union([z.string(), z.number()]).optional(),
});

const replyFlowSchema = z.object({
  flowId: z.string(),
  requesterKey: z.string(),
  targetKey: z.string(),
  originalMessage: z.string(),
  maxTurns: z.number().int().min(0),
  stepTimeoutMs: z.number().int().positive(),
  hop: z.number().int().min(0),
  stage: z.enum(["request", "ping", "announce"]),
  turn: z.number().int().min(0),
  round1Reply: z.string().optional(),
  latestReply: z.string().optional(),
});

/** A turn for a session, as carried by the queue (mirrors TurnRequest in src/session/run-store.ts). */
export const turnRequestSchema = z.object({
  runId: z.string().min(1),
  dedupeKey: z.string().optional(),
  message: z.object({ id: z.string().optional(), text: z.string(), provenance: provenanceSchema }),
  context: z.string().optional(),
  timeoutMs: z.number().int().positive().optional(),
  flow: replyFlowSchema.optional(),
  replyTo: deliveryContextSchema.optional(),
  replyToOwnChannel: z.boolean().optional(),
});

/** A fire-and-forget sessions_send: deliver this turn into the target session. */
export const sendMessageSchema = z.object({
  type: z.literal("send"),
  targetKey: z.string().min(1),
  turn: turnRequestSchema,
});

/** An outbound channel delivery (SPEC §8): reply, announce or completion update. */
export const outboundMessageSchema = z.object({
  type: z.literal("outbound"),
  channel: z.string().min(1),
  to: z.string().min(1),
  accountId: z.string().optional(),
  threadId: z.union([z.string(), z.number()]).optional(),
  text: z.string(),
  sessionKey: z.string(),
  runId: z.string(),
  idempotencyKey: z.string().min(1),
});

export const queueMessageSchema = z.discriminatedUnion("type", [sendMessageSchema, outboundMessageSchema]);
export type QueueMessage = z.infer<typeof queueMessageSchema>;
export type SendMessage = z.infer<typeof sendMessageSchema>;
export type OutboundMessage = z.infer<typeof outboundMessageSchema>;
