import { z } from "zod";
import type { SwitchboardConfig } from "../config/schema";
import { announceTargetFromKey, canonicalizeKeyInput, type KeyOptions } from "../keys";
import type { DeliveryContext } from "../session/api";
import { sentTextSchema } from "../transcript/message";

// Ids are placed in session keys between `:` separators: one with a `:` of its own could name another
// chat (`c:thread:x` would merge with chat `c`, thread `x`), so it is refused rather than guessed at.
export const channelIdSchema = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .refine((value) => !value.includes(":"), 'must not contain ":" (ids are separated by ":" in session keys)')
  .refine((value) => !/\p{Cc}/u.test(value), "must not contain control characters");

/** `POST /v1/channels/{channel}/messages` body (SPEC §8). */
export const inboundMessageSchema = z.strictObject({
  agentId: z.string().trim().min(1).optional(),
  chatType: z.enum(["direct", "group", "channel"]),
  chatId: channelIdSchema,
  threadId: z.union([channelIdSchema, z.number().int()]).optional(),
  senderId: channelIdSchema,
  accountId: channelIdSchema.optional(),
  text: sentTextSchema,
  messageId: channelIdSchema,
});
export type InboundMessage = z.infer<typeof inboundMessageSchema>;

// A `webhook` channel says nothing of its platform but its name: one named telegram has topics.
const TOPIC_CHANNELS: ReadonlySet<string> = new Set(["telegram"]);

/**
 * The session an inbound message belongs to: by chat type, thread, and `session.scope`. A platform
 * channel names its threads by its platform (`threadKind`: Telegram's forum topics); a `webhook` one
 * by its name.
 */
export function inboundSessionKey(
  channel: string,
  agentId: string,
  message: Pick<InboundMessage, "chatType" | "chatId" | "senderId" | "threadId">,
  options: KeyOptions,
  threadKind: "topic" | "thread" = TOPIC_CHANNELS.has(channel) ? "topic" : "thread",
) {
  const chat =
    message.chatType === "direct"
      ? `${channel}:direct:${message.senderId}`
      : `${channel}:${message.chatType}:${message.chatId}`;
  const thread = message.threadId === undefined ? "" : `:${threadKind}:${message.threadId}`;
  return canonicalizeKeyInput(`agent:${agentId}:${chat}${thread}`, agentId, options);
}

/**
 * Session keys are lower-cased, but a channel's own ids are not always (Slack's `C024BE91L`): the address
 * derived from the key gets the chat id back as the channel sent it.
 */
function withOriginalCase(to: string, chatId: string): string {
  const lowered = chatId.toLowerCase();
  return to.endsWith(lowered) ? `${to.slice(0, to.length - lowered.length)}${chatId}` : to;
}

/** Where the reply to an inbound message goes: the chat it came from (SPEC §8 delivery context). */
export function inboundReplyTarget(
  channel: string,
  sessionKey: string,
  message: InboundMessage,
  options: KeyOptions,
): DeliveryContext {
  const chatId = message.chatType === "direct" ? message.senderId : message.chatId;
  const fromKey = announceTargetFromKey(sessionKey, options);
  const base: DeliveryContext = fromKey
    ? { ...fromKey, to: withOriginalCase(fromKey.to, chatId) }
    : { channel, to: chatId, ...(message.threadId !== undefined ? { threadId: message.threadId } : {}) };
  // A numeric thread id stays numeric (SPEC §5.1 deliveryContext).
  const threadId = message.threadId ?? base.threadId;
  return {
    ...base,
    ...(message.accountId ? { accountId: message.accountId } : {}),
    ...(threadId !== undefined ? { threadId } : {}),
  };
}

/** Who may flip a chat's send policy: the peer of a direct chat, or a configured owner. */
export function isChannelOwner(
  config: SwitchboardConfig,
  channel: string,
  message: Pick<InboundMessage, "chatType" | "senderId">,
): boolean {
  if (message.chatType === "direct") return true;
  return config.channels[channel]?.owners.includes(message.senderId) ?? false;
}

/** What `POST /v1/channels/{channel}/messages` answers: a command applied (200), or accepted or blocked (202). */
export const inboundAnswerSchema = z.union([
  z.object({
    status: z.literal("command"),
    sessionKey: z.string(),
    sendPolicy: z.enum(["allow", "deny", "inherit"]),
    duplicate: z.boolean(),
  }),
  z.object({
    status: z.literal("accepted"),
    runId: z.string(),
    sessionKey: z.string(),
    duplicate: z.boolean().describe("a redelivered messageId: the first run"),
  }),
  z.object({ status: z.literal("blocked"), sessionKey: z.string(), error: z.string() }),
]);
