import { z } from "zod";
import { type InboundUpdate, ignored, type PlatformMessage } from "../inbound-types";

const event = z.looseObject({
  type: z.string(),
  subtype: z.string().optional(),
  channel: z.string().optional(),
  channel_type: z.string().optional(),
  user: z.string().optional(),
  bot_id: z.string().optional(),
  text: z.string().optional(),
  ts: z.string().optional(),
  thread_ts: z.string().optional(),
  parent_user_id: z.string().optional(),
});
/** The Events API envelopes we read: the URL handshake and an event callback. */
export const slackEnvelopeSchema = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("url_verification"), challenge: z.string() }),
  z.looseObject({ type: z.literal("event_callback"), event_id: z.string().optional(), event }),
]);

// Subtypes that are still someone's message; every other subtype (joins, topic changes, …) is not.
const MESSAGE_SUBTYPES: ReadonlySet<string> = new Set(["file_share", "thread_broadcast", "me_message"]);
const CHANNEL_TYPES = { im: "direct", mpim: "group", group: "group", channel: "channel" } as const;

/**
 * The chat type: `channel_type` when the event has it (`message` events), else the id's kind
 * (`app_mention` has none): D… a direct message, G… a private channel or group DM, C… a channel.
 */
function chatTypeOf(channel: string, channelType: string | undefined): PlatformMessage["chatType"] {
  if (channelType && channelType in CHANNEL_TYPES)
    return CHANNEL_TYPES[channelType as keyof typeof CHANNEL_TYPES];
  if (channel.startsWith("D")) return "direct";
  return channel.startsWith("G") ? "group" : "channel";
}

/** A Slack Events API request as SPEC §21 maps it: `im` → direct, `mpim`/private → group, `thread_ts` → `:thread:`. */
export function mapSlackEnvelope(body: unknown): InboundUpdate {
  const envelope = slackEnvelopeSchema.safeParse(body);
  if (!envelope.success) return ignored("not a Slack event callback");
  if (envelope.data.type === "url_verification")
    return {
      kind: "handshake",
      answer: new Response(envelope.data.challenge, { headers: { "Content-Type": "text/plain" } }),
    };
  const found = envelope.data.event;
  if (found.type !== "message" && found.type !== "app_mention") return ignored(`event ${found.type}`);
  if (found.subtype === "message_changed") return ignored("an edit");
  if (found.subtype === "message_deleted") return ignored("a deletion");
  if (found.bot_id || found.subtype === "bot_message") return ignored("a bot's message");
  if (found.subtype && !MESSAGE_SUBTYPES.has(found.subtype))
    return ignored(`message subtype ${found.subtype}`);
  const { channel, user, ts, text } = found;
  if (!channel || !user || !ts || text === undefined) return ignored("a message without channel, user or ts");
  if (text.trim() === "") return ignored("no text");
  const mapped: PlatformMessage = {
    chatType: chatTypeOf(channel, found.channel_type),
    chatId: channel,
    ...(found.thread_ts && found.thread_ts !== ts ? { threadId: found.thread_ts } : {}),
    senderId: user,
    messageId: ts,
    text,
    mentions: [...text.matchAll(/<@([A-Z0-9]+)(?:\|[^>]*)?>/g)].map((match) => ({ userId: match[1] })),
    ...(found.parent_user_id ? { replyToSenderId: found.parent_user_id } : {}),
    // An `app_mention` is Slack saying the bot was addressed, whatever the text looks like.
    command: found.type === "app_mention",
    replyToMessageId: ts,
  };
  return { kind: "message", message: mapped };
}

/**
 * Slack's markup made readable: the bot's own `<@U…>` removed; other users `@name` (or `@U…`), channels
 * `#name`, `<!here>` `@here`, links `label (url)`; the three escaped characters back.
 */
export function readableSlackText(text: string, botUserId: string | undefined): string {
  return text
    .replace(/<@([A-Z0-9]+)(?:\|([^>]*))?>/g, (_, id: string, name?: string) =>
      id === botUserId ? "" : `@${name || id}`,
    )
    .replace(/<#([A-Z0-9]+)(?:\|([^>]*))?>/g, (_, id: string, name?: string) => `#${name || id}`)
    .replace(/<!(here|channel|everyone)(?:\|[^>]*)?>/g, "@$1")
    .replace(/<((?:https?|mailto):[^|>]+)\|([^>]+)>/g, "$2 ($1)")
    .replace(/<((?:https?|mailto):[^>]+)>/g, "$1")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&")
    .replace(/[ \t]{2,}/g, " ")
    .trim();
}
