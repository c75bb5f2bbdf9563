/** One chat message as a platform's mapping reads it (SPEC §21 mapping), before groups decide on it. */
export interface PlatformMessage {
  chatType: "direct" | "group" | "channel";
  /** The chat; for a direct chat the peer (the session key names the sender). */
  chatId: string;
  /** A Telegram forum topic, a Slack or Discord thread. */
  threadId?: string;
  senderId: string;
  senderName?: string;
  /** The platform's id of the message (a Discord interaction's id): one message, one run. */
  messageId: string;
  /** The text as the platform sent it; the bot's own mention is removed once the bot is known. */
  text: string;
  /** How it addresses someone: mention entities (user ids and/or @usernames), a reply, a command. */
  mentions: { userId?: string; username?: string }[];
  replyToSenderId?: string;
  /** A command (Telegram `/cmd`, a Discord application command): addressed, unless it names another bot. */
  command: boolean;
  /** The bot a Telegram command names (`/ask@some_bot`): only that bot's. */
  commandFor?: string;
  /** The platform message the reply should quote (Telegram `reply_to_message_id`, Slack `thread_ts`). */
  replyToMessageId?: string;
  /** A Discord interaction: its token posts the reply as a follow-up for 15 minutes. */
  interaction?: { id: string; token: string; expiresAt: number };
}

/** Who the bot is on its platform (SPEC §21: `getMe`, `auth.test`, the Discord application id). */
export interface BotIdentity {
  id: string;
  username?: string;
}

/**
 * What a verified request is: a platform handshake answered at once (Slack's `url_verification`,
 * Discord's `PING`), something acknowledged and ignored (a bot, an edit, a shape we do not take), or a
 * message. `answer` is what the platform is told when it is not our plain JSON receipt.
 */
export type InboundUpdate =
  | { kind: "handshake"; answer: Response }
  | { kind: "ignored"; reason: string; answer?: Response }
  | { kind: "message"; message: PlatformMessage; answer?: Response };

export const ignored = (reason: string, answer?: Response): InboundUpdate => ({
  kind: "ignored",
  reason,
  ...(answer ? { answer } : {}),
});
