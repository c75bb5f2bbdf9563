import { Hono } from "hono";
import type { AppEnv } from "../../app-env";
import { thirdPartySecrets } from "../../auth/third-party-secret";
import { inboundMessageSchema, inboundReplyTarget, inboundSessionKey } from "../../channels/inbound";
import { verifySignatureHeader } from "../../channels/signature";
import { findAgent } from "../../config/agents";
import { keyOptionsOf } from "../../config/key-options";
import { AppError, badRequest } from "../../errors";
import { displayKey } from "../../keys";
import { stableUuid } from "../../messaging/stable-id";
import { sessionApi } from "../../session/client";
import { parseJsonText } from "../middleware";
import { parseBody } from "../parse-body";
import { unwrapResult } from "../store-result";
import { platformInbound } from "./channel-platforms";

/**
 * Inbound channel messages, signed with the channel's secret (SPEC §8). The route verifies, parses and
 * names the session; the session object takes the message in one call and one transaction
 * (SessionApi.acceptInbound): it creates the session if needed and decides commands and the send policy.
 * A `telegram`, `slack` or `discord` channel is the platform's own webhook (channel-platforms.ts).
 */
export const channelRoutes = new Hono<AppEnv>().post("/:channel/messages", async (c) => {
  const channel = c.req.param("channel").toLowerCase();
  const config = c.get("config");
  const settings = config.channels[channel];
  if (!settings)
    throw new AppError(
      "not_found",
      `unknown channel "${channel}": add it under channels in the configuration`,
    );
  // A chat platform is verified and read by its own scheme (SPEC §21); `webhook` is §8's signed JSON.
  if (settings.platform !== "webhook")
    return platformInbound(c, channel, { ...settings, platform: settings.platform });
  const secrets = await thirdPartySecrets(c.env, { use: "channel", channel }, settings.secretEnv);
  if (!secrets.ok) throw new AppError("unavailable", `channel ${secrets.error}`);
  // The signature covers the exact bytes, so it is checked before anything is parsed or written.
  const raw = await c.req.text();
  const header = c.req.header("X-Switchboard-Signature");
  let signed = false;
  for (const secret of secrets.secrets) signed ||= await verifySignatureHeader(secret, header, raw);
  if (!signed) throw new AppError("unauthorized", "unauthorized");
  const message = parseBody(inboundMessageSchema, parseJsonText(raw));
  const agentId = (message.agentId ?? settings.agentId ?? config.agents.list[0]?.id ?? "").toLowerCase();
  if (!findAgent(config, agentId)) throw badRequest(`agentId: unknown agent "${agentId}"`);
  const keyOptions = keyOptionsOf(config);
  const key = inboundSessionKey(channel, agentId, message, keyOptions);
  if (!key.ok) throw badRequest(`chatId: ${key.error}`);
  const replyTo = inboundReplyTarget(channel, key.key, message, keyOptions);
  const answer = unwrapResult(
    await sessionApi(c.env.SESSION, key.key).acceptInbound({
      init: { sessionKey: key.key, agentId, channel, chatType: message.chatType, deliveryContext: replyTo },
      channelMessageId: message.messageId,
      text: message.text,
      senderId: message.senderId,
      // Message ids are unique per chat on most channels (Telegram counts per chat): the session is in it.
      runId: await stableUuid("channel", channel, key.key, message.messageId),
      busy: { mode: settings.busy, debounceMs: settings.debounceMs },
    }),
  );
  // Answered with the key as the session's row shows it.
  const sessionKey = displayKey(key.key, keyOptions);
  if (answer.status === "command") return c.json({ ...answer, sessionKey });
  if (answer.status === "blocked")
    return c.json({ status: "blocked", sessionKey, error: "send blocked by session policy" }, 202);
  return c.json({ ...answer, sessionKey }, 202);
});
