import { z } from "zod";
import { type InboundUpdate, ignored, type PlatformMessage } from "../inbound-types";

/** How long an interaction's token posts follow-ups (Discord: 15 minutes). */
export const INTERACTION_TOKEN_MS = 15 * 60_000;

const user = z.looseObject({ id: z.string(), username: z.string().optional(), bot: z.boolean().optional() });
const option = z.looseObject({ name: z.string(), type: z.number(), value: z.unknown().optional() });
/** The parts of a Discord interaction we read (discord-api-types' APIInteraction, loosely). */
export const discordInteractionSchema = z.looseObject({
  id: z.string(),
  type: z.number(),
  token: z.string().optional(),
  guild_id: z.string().optional(),
  channel_id: z.string().optional(),
  channel: z.looseObject({ id: z.string(), type: z.number(), parent_id: z.string().nullish() }).optional(),
  member: z.looseObject({ user }).optional(),
  user: user.optional(),
  data: z
    .looseObject({
      name: z.string().optional(),
      type: z.number().optional(),
      target_id: z.string().optional(),
      options: z.array(option).optional(),
      resolved: z
        .looseObject({
          users: z.record(z.string(), user).optional(),
          channels: z.record(z.string(), z.looseObject({ name: z.string().optional() })).optional(),
          roles: z.record(z.string(), z.looseObject({ name: z.string().optional() })).optional(),
          messages: z.record(z.string(), z.looseObject({ content: z.string().optional() })).optional(),
        })
        .optional(),
    })
    .optional(),
});
type Interaction = z.infer<typeof discordInteractionSchema>;

const json = (body: unknown) => Response.json(body);
/** A reply only the user sees (flags 64, ephemeral): how an interaction we do not take is acknowledged. */
const ephemeral = (content: string) => json({ type: 4, data: { content, flags: 64 } });
// Channel types: 1 DM, 3 group DM; 10, 11, 12 threads (announcement, public, private).
const THREAD_TYPES: ReadonlySet<number> = new Set([10, 11, 12]);

/**
 * A Discord interaction as SPEC §21 maps it: `PING` answered `PONG`, `/ask text:<…>` and a message
 * command start a run (answered at once with a deferred response, type 5); a DM is direct, a guild
 * channel a channel, a thread `:thread:`.
 */
export function mapDiscordInteraction(body: unknown, applicationId: string, now: number): InboundUpdate {
  const parsed = discordInteractionSchema.safeParse(body);
  if (!parsed.success)
    return ignored("not a Discord interaction", ephemeral("This is not something I take."));
  const interaction = parsed.data;
  if (interaction.type === 1) return { kind: "handshake", answer: json({ type: 1 }) };
  // A component click changes nothing (6: deferred update); an autocomplete offers nothing (8).
  if (interaction.type === 3) return ignored("a message component", json({ type: 6 }));
  if (interaction.type === 4) return ignored("an autocomplete", json({ type: 8, data: { choices: [] } }));
  if (interaction.type !== 2)
    return ignored(`interaction type ${interaction.type}`, ephemeral("Not supported."));
  const sender = interaction.member?.user ?? interaction.user;
  const channelId = interaction.channel?.id ?? interaction.channel_id;
  if (!sender || !channelId || !interaction.token) return ignored("an interaction without user or channel");
  if (sender.bot) return ignored("a bot's interaction", ephemeral("Bots are not answered."));
  const asked = askedText(interaction);
  if (asked === undefined)
    return ignored(`command ${interaction.data?.name ?? "?"}`, ephemeral("Use /ask with some text."));
  const channelType = interaction.channel?.type;
  const parent = interaction.channel?.parent_id;
  const inThread = channelType !== undefined && THREAD_TYPES.has(channelType) && parent;
  const mapped: PlatformMessage = {
    chatType: interaction.guild_id ? "channel" : channelType === 3 ? "group" : "direct",
    chatId: inThread ? parent : channelId,
    ...(inThread ? { threadId: channelId } : {}),
    senderId: sender.id,
    senderName: sender.username ? `@${sender.username}` : sender.id,
    messageId: interaction.id,
    text: readableDiscordText(asked.text, interaction, applicationId),
    mentions: [],
    command: true,
    ...(asked.targetId ? { replyToMessageId: asked.targetId } : {}),
    interaction: { id: interaction.id, token: interaction.token, expiresAt: now + INTERACTION_TOKEN_MS },
  };
  // Discord wants an answer within 3 s: "thinking…" now, the reply as a follow-up with the token.
  return { kind: "message", message: mapped, answer: json({ type: 5 }) };
}

/** `/ask text:<…>` (chat input, data type 1) or a message command (type 3: the target message's content). */
function askedText(interaction: Interaction): { text: string; targetId?: string } | undefined {
  const data = interaction.data;
  if (data?.type === 3 && data.target_id) {
    const content = data.resolved?.messages?.[data.target_id]?.content;
    return content?.trim() ? { text: content, targetId: data.target_id } : undefined;
  }
  if ((data?.type ?? 1) !== 1 || data?.name !== "ask") return undefined;
  const text = data.options?.find((found) => found.name === "text" && found.type === 3)?.value;
  return typeof text === "string" && text.trim() ? { text } : undefined;
}

/** Mentions made readable by the names Discord resolved; the bot's own removed. */
function readableDiscordText(text: string, interaction: Interaction, applicationId: string): string {
  const resolved = interaction.data?.resolved;
  return text
    .replace(/<@!?(\d+)>/g, (_, id: string) =>
      id === applicationId ? "" : `@${resolved?.users?.[id]?.username ?? id}`,
    )
    .replace(/<#(\d+)>/g, (_, id: string) => `#${resolved?.channels?.[id]?.name ?? id}`)
    .replace(/<@&(\d+)>/g, (_, id: string) => `@${resolved?.roles?.[id]?.name ?? id}`)
    .replace(/[ \t]{2,}/g, " ")
    .trim();
}
