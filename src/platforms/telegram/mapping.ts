import { z } from "zod";
import { type InboundUpdate, ignored, type PlatformMessage } from "../inbound-types";

const user = z.looseObject({
  id: z.number(),
  is_bot: z.boolean().optional(),
  first_name: z.string().optional(),
  last_name: z.string().optional(),
  username: z.string().optional(),
});
const entity = z.looseObject({
  type: z.string(),
  offset: z.number(),
  length: z.number(),
  user: user.optional(),
});
const message = z.looseObject({
  message_id: z.number(),
  from: user.optional(),
  sender_chat: z.looseObject({ id: z.number(), title: z.string().optional() }).optional(),
  chat: z.looseObject({
    id: z.number(),
    type: z.enum(["private", "group", "supergroup", "channel"]),
    is_forum: z.boolean().optional(),
  }),
  message_thread_id: z.number().optional(),
  text: z.string().optional(),
  caption: z.string().optional(),
  entities: z.array(entity).optional(),
  caption_entities: z.array(entity).optional(),
  reply_to_message: z.looseObject({ message_id: z.number(), from: user.optional() }).optional(),
});
/** The parts of a Telegram `Update` we read; anything else in it is kept loose and ignored. */
export const telegramUpdateSchema = z.looseObject({
  update_id: z.number(),
  message: message.optional(),
  channel_post: message.optional(),
  edited_message: z.unknown().optional(),
  edited_channel_post: z.unknown().optional(),
});

const CHAT_TYPES = { private: "direct", group: "group", supergroup: "group", channel: "channel" } as const;

/** A Telegram update as SPEC §21 maps it: private → direct, (super)group → group, a forum's topic → `:topic:`. */
export function mapTelegramUpdate(body: unknown): InboundUpdate {
  const update = telegramUpdateSchema.safeParse(body);
  if (!update.success) return ignored("not a Telegram update");
  if (update.data.edited_message !== undefined || update.data.edited_channel_post !== undefined)
    return ignored("an edit");
  const post = update.data.message ?? update.data.channel_post;
  if (!post) return ignored(`an update of a kind not taken (${Object.keys(update.data).join(", ")})`);
  if (post.from?.is_bot) return ignored("a bot's message");
  const text = post.text ?? post.caption;
  if (text === undefined || text.trim() === "") return ignored("no text");
  const entities = (post.text !== undefined ? post.entities : post.caption_entities) ?? [];
  const sender = post.from ?? post.sender_chat;
  if (!sender) return ignored("no sender");
  const command = entities.find((found) => found.type === "bot_command" && found.offset === 0);
  const commandFor = command
    ? /@(\w+)$/.exec(text.slice(command.offset, command.offset + command.length))?.[1]
    : undefined;
  const mapped: PlatformMessage = {
    chatType: CHAT_TYPES[post.chat.type],
    chatId: String(post.chat.id),
    ...(post.chat.is_forum && post.message_thread_id !== undefined
      ? { threadId: String(post.message_thread_id) }
      : {}),
    senderId: String(sender.id),
    senderName: senderName(post.from) ?? post.sender_chat?.title ?? String(sender.id),
    messageId: String(post.message_id),
    text,
    mentions: entities.flatMap((found): PlatformMessage["mentions"] => {
      if (found.type === "text_mention" && found.user) return [{ userId: String(found.user.id) }];
      if (found.type !== "mention") return [];
      return [{ username: text.slice(found.offset + 1, found.offset + found.length) }];
    }),
    ...(post.reply_to_message?.from ? { replyToSenderId: String(post.reply_to_message.from.id) } : {}),
    command: command !== undefined,
    ...(commandFor ? { commandFor } : {}),
    replyToMessageId: String(post.message_id),
  };
  return { kind: "message", message: mapped };
}

function senderName(from: z.infer<typeof user> | undefined): string | undefined {
  if (!from) return undefined;
  if (from.username) return `@${from.username}`;
  return [from.first_name, from.last_name].filter(Boolean).join(" ") || undefined;
}

/** The text without the bot's own `@username` (also a command's `/ask@bot` suffix); others' stay. */
export function withoutTelegramMention(text: string, username: string | undefined): string {
  if (!username) return text.trim();
  const own = new RegExp(`@${username.replace(/[^\w]/g, "")}\\b`, "gi");
  return text
    .replace(own, "")
    .replace(/[ \t]{2,}/g, " ")
    .trim();
}
