import { inboundSessionKey } from "../channels/inbound";
import { parseSessionKey } from "../keys";
import { PLATFORM_INBOUND } from "../platforms/inbound";
import type { DeliveryContext } from "../session/api";
import type { ToolContext, ToolFailure } from "./types";

/** A thread opened for a child: its key (the thread's, as the inbound mapping names it) and its chat. */
export interface SpawnThread {
  ok: true;
  childKey: string;
  /** The child's delivery context: the thread its replies and its completion's update go to. */
  thread: DeliveryContext;
  chatType: "direct" | "group" | "channel";
}

const refuse = (error: string): { ok: false } & ToolFailure => ({ ok: false, status: "error", error });

/**
 * Opens a real thread for a child of `sessions_spawn { thread: true }` (SPEC §21) in the requester's
 * chat, before anything of the child exists: a platform that refuses leaves nothing spawned. The child's
 * key is the one the platform's inbound mapping computes for a message in that thread (src/routes/v1/
 * channel-platforms.ts), so what people write there reaches the child; hence the child must be the
 * channel's own agent, which those messages go to.
 */
export async function openSpawnThread(
  ctx: ToolContext,
  targetId: string,
  title: string,
): Promise<SpawnThread | ({ ok: false } & ToolFailure)> {
  const { requester, config } = ctx;
  const parsed = parseSessionKey(requester.sessionKey, ctx.keyOptions);
  const settings = parsed?.channel ? config.channels[parsed.channel] : undefined;
  if (!parsed?.channel || !parsed.chatType || !parsed.chatId || !settings)
    return refuse("thread: true needs a session in a Telegram, Slack or Discord chat; this one is in none.");
  if (settings.platform === "webhook")
    return refuse(
      `thread: true needs a chat platform channel (telegram, slack or discord); "${parsed.channel}" is a webhook channel.`,
    );
  const channelAgent = (settings.agentId ?? config.agents.list[0]?.id ?? "").toLowerCase();
  if (targetId !== channelAgent)
    return refuse(
      `thread: what people write in the thread goes to channel "${parsed.channel}"'s agent "${channelAgent}"; spawn that agent, or leave thread off to spawn "${targetId}".`,
    );
  // The chat as the platform spells it (keys are lower-cased; Slack's ids are not).
  const described = await ctx.session(requester.sessionKey).describe();
  const recorded = described.ok ? described.value.deliveryContext : undefined;
  const to = recorded?.channel === parsed.channel ? recorded.to : parsed.chatId;
  const opened = await ctx.openThread({ channel: parsed.channel, to, title });
  if (!opened.ok) return refuse(`thread: ${opened.error}`);
  const key = inboundSessionKey(
    parsed.channel,
    channelAgent,
    { chatType: parsed.chatType, chatId: parsed.chatId, senderId: parsed.chatId, threadId: opened.threadId },
    ctx.keyOptions,
    PLATFORM_INBOUND[settings.platform].threadKind,
  );
  if (!key.ok) return refuse(`thread: the thread's session key: ${key.error}`);
  return {
    ok: true,
    childKey: key.key,
    thread: { channel: parsed.channel, to, threadId: opened.threadId },
    chatType: parsed.chatType,
  };
}
