import type { Context } from "hono";
import type { AppEnv } from "../../app-env";
import { channelIdSchema, inboundSessionKey } from "../../channels/inbound";
import { keyOptionsOf } from "../../config/key-options";
import type { Platform } from "../../config/schema";
import { AppError } from "../../errors";
import { type InboundOutcome, noteInbound } from "../../index-db/channel-state";
import { readShards } from "../../index-db/shards";
import { displayKey } from "../../keys";
import { stableUuid } from "../../messaging/stable-id";
import { addressesBot, senderAllowed } from "../../platforms/groups";
import { PLATFORM_INBOUND } from "../../platforms/inbound";
import type { ChannelSettings, InboundRequest } from "../../platforms/platform";
import type { DeliveryContext } from "../../session/api";
import { sessionApi } from "../../session/client";
import { parseJsonText } from "../middleware";
import { unwrapResult } from "../store-result";

/**
 * A chat platform's request to its channel (SPEC §21): verified by the platform's own scheme before
 * anything is read or written, mapped, and handed to the session in one call. Nothing else waits here
 * (the platform wants its answer within 3 s): the run goes on in the session's object.
 */
export async function platformInbound(
  c: Context<AppEnv>,
  channel: string,
  settings: ChannelSettings & { platform: Exclude<Platform, "webhook"> },
): Promise<Response> {
  const platform = PLATFORM_INBOUND[settings.platform];
  const request: InboundRequest = {
    channel,
    settings,
    headers: c.req.raw.headers,
    raw: await c.req.text(),
    now: Date.now(),
  };
  const verified = await platform.verify(c.env, request);
  if (!verified.ok && verified.missing) throw new AppError("unavailable", `channel ${verified.missing}`);
  if (!verified.ok) throw new AppError("unauthorized", "unauthorized");
  const note = (outcome: InboundOutcome, reason?: string) =>
    noteInbound(readShards(c.env)[0], channel, outcome, request.now, reason).catch((error: unknown) =>
      console.warn(`channel ${channel}: inbound state not noted: ${String(error)}`),
    );
  let body: unknown;
  try {
    body = parseJsonText(request.raw);
  } catch {
    body = undefined;
  }
  const update = platform.map(body, request);
  if (update.kind === "handshake") return update.answer;
  // Acknowledged so the platform stops retrying; counted and logged (never its content) as ignored.
  const ignore = async (reason: string, answer?: Response) => {
    console.log(JSON.stringify({ channel, platform: settings.platform, inbound: "ignored", reason }));
    await note("ignored", reason);
    return answer ?? c.json({ status: "ignored", reason }, 200);
  };
  if (update.kind === "ignored") return ignore(update.reason, update.answer);
  const message = update.message;
  const ids = [message.chatId, message.senderId, message.messageId, message.threadId ?? "x"];
  if (!ids.every((id) => channelIdSchema.safeParse(id).success)) return ignore("ids unfit for a session key");
  if (!senderAllowed(settings.allowFrom, message.senderId)) {
    await note("dropped");
    return platform.refusal?.() ?? c.json({ status: "dropped" }, 200);
  }
  const config = c.get("config");
  const agentId = (settings.agentId ?? config.agents.list[0]?.id ?? "").toLowerCase();
  const keyOptions = keyOptionsOf(config);
  const key = inboundSessionKey(channel, agentId, message, keyOptions, platform.threadKind);
  if (!key.ok) return ignore(`no session key: ${key.error}`);
  // The bot is asked about only where it matters: a group's addressing and its own mention in the text.
  const bot = message.chatType === "direct" ? undefined : await platform.identity(c.env, request);
  const addressed =
    message.chatType === "direct" || settings.groupActivation === "always" || addressesBot(message, bot);
  const text = platform.readableText(message, bot);
  if (!text) return ignore("nothing but the bot's mention");
  if (!addressed && settings.groupHistoryLimit === 0) return ignore("unaddressed, and no group history kept");
  const replyTo: DeliveryContext = {
    channel,
    to: message.chatId,
    ...(message.threadId !== undefined ? { threadId: message.threadId } : {}),
    ...(message.replyToMessageId !== undefined ? { replyToMessageId: message.replyToMessageId } : {}),
    ...(message.interaction ? { interaction: message.interaction } : {}),
  };
  const answer = unwrapResult(
    await sessionApi(c.env.SESSION, key.key).acceptInbound({
      init: { sessionKey: key.key, agentId, channel, chatType: message.chatType, deliveryContext: replyTo },
      channelMessageId: message.messageId,
      text,
      senderId: message.senderId,
      ...(message.senderName !== undefined ? { senderName: message.senderName } : {}),
      runId: await stableUuid("channel", channel, key.key, message.messageId),
      busy: { mode: settings.busy, debounceMs: settings.debounceMs },
      ...(addressed ? {} : { context: { historyLimit: settings.groupHistoryLimit } }),
    }),
  );
  const duplicate = "duplicate" in answer && answer.duplicate;
  await note(duplicate ? "duplicate" : answer.status === "context" ? "context" : answer.status);
  if (update.answer) return update.answer;
  return c.json(
    { ...answer, sessionKey: displayKey(key.key, keyOptions) },
    answer.status === "command" ? 200 : 202,
  );
}
