import { z } from "zod";
import { turnRequestSchema } from "../session/api";

/** A fire-and-forget sessions_send: the Queue carries the turn into the target session. */
export const sendMessageSchema = z.object({
  type: z.literal("send"),
  targetKey: z.string().min(1),
  turn: turnRequestSchema,
});

/** A fire-and-forget send too large for a Queue message: the turn is read from the sender's `sent` row. */
export const sendRefMessageSchema = z.object({
  type: z.literal("send_ref"),
  targetKey: z.string().min(1),
  runId: z.string().min(1),
  sourceKey: z.string().min(1),
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
  /**
   * The platform's id of the message this answers (SPEC §21): a Telegram reply quotes it. Set from the
   * run's inbound message where the platform gave one (issue 31's inbound half stores it).
   */
  replyToMessageId: z.string().min(1).optional(),
  /**
   * A Discord interaction the reply answers: its follow-up webhook takes the reply while the token lives
   * (15 minutes, `expiresAt` ms since the epoch); afterwards the bot token posts to the channel.
   */
  interaction: z.object({ token: z.string().min(1), expiresAt: z.number() }).optional(),
  /**
   * The platform message the run's reply was written into as it came (SPEC §21 Live, streaming "edit";
   * Slack's placeholder): the first part edits it instead of posting, so the edit is the delivery.
   */
  draft: z.object({ messageId: z.string().min(1) }).optional(),
  /** The run ended without a reply (interrupted, failed, silent): its draft is deleted, nothing posted. */
  retract: z.literal(true).optional(),
  /** The producing session's delivery record (SPEC §16), which each attempt is reported to. */
  deliveryId: z.string().min(1).optional(),
});

export const queueMessageSchema = z.discriminatedUnion("type", [
  sendMessageSchema,
  sendRefMessageSchema,
  outboundMessageSchema,
]);
export type QueueMessage = z.infer<typeof queueMessageSchema>;
export type SendMessage = z.infer<typeof sendMessageSchema>;
export type OutboundMessage = z.infer<typeof outboundMessageSchema>;
