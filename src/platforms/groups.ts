import type { BotIdentity, PlatformMessage } from "./inbound-types";

/**
 * Whether a message addresses the bot (SPEC §21 groups, OpenClaw's requireMention): a command for it,
 * a mention of it (by id or `@username`), or a reply to one of its messages. Without an identity only
 * commands do: a group is never answered on a guess.
 */
export function addressesBot(message: PlatformMessage, bot: BotIdentity | undefined): boolean {
  const username = bot?.username?.toLowerCase();
  if (message.command && (!message.commandFor || message.commandFor.toLowerCase() === username)) return true;
  if (!bot) return false;
  if (message.replyToSenderId === bot.id) return true;
  if (message.mentions.some((found) => found.userId === bot.id || found.username?.toLowerCase() === username))
    return true;
  return username !== undefined && message.text.toLowerCase().includes(`@${username}`);
}

/** SPEC §21 `allowFrom`: an empty list lets everyone in; otherwise only the listed sender ids. */
export function senderAllowed(allowFrom: readonly string[], senderId: string): boolean {
  return allowFrom.length === 0 || allowFrom.includes(senderId);
}
