import { Hono } from "hono";
import type { AppEnv } from "../../app-env";
import { thirdPartySecrets } from "../../auth/third-party-secret";
import {
  inboundMessageSchema,
  inboundReplyTarget,
  inboundSessionKey,
  isChannelOwner,
} from "../../channels/inbound";
import { parseSendCommand, sendCommandConfirmation } from "../../channels/send-command";
import { verifySignatureHeader } from "../../channels/signature";
import { findAgent } from "../../config/agents";
import { keyOptionsOf } from "../../config/key-options";
import { AppError, badRequest } from "../../errors";
import { stableUuid } from "../../messaging/stable-id";
import { resolveSendPolicy, sendPolicySubject } from "../../policy/send-policy";
import { sessionApi } from "../../session/client";
import { parseJsonText } from "../middleware";
import { parseBody } from "../parse-body";
import { unwrapResult } from "../store-result";

/** Inbound channel messages, signed with the channel's secret (SPEC §8). */
export const channelRoutes = new Hono<AppEnv>().post("/:channel/messages", async (c) => {
  const channel = c.req.param("channel").toLowerCase();
  const config = c.get("config");
  const settings = config.channels[channel];
  if (!settings)
    throw new AppError(
      "not_found",
      `unknown channel "${channel}": add it under channels in the configuration`,
    );
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
  const session = sessionApi(c.env.SESSION, key.key);
  const row = unwrapResult(
    await session.ensure({
      sessionKey: key.key,
      agentId,
      channel,
      chatType: message.chatType,
      deliveryContext: replyTo,
    }),
  );
  // Message ids are unique per chat on most channels (Telegram counts per chat), so the session is in the id.
  const runId = await stableUuid("channel", channel, key.key, message.messageId);
  const inbound = {
    messageId: `channel:${channel}:${message.messageId}`,
    text: message.text,
    provenance: { kind: "external_user" as const, sourceChannel: channel },
    replyTo,
    runId,
  };

  const command = parseSendCommand(message.text);
  if (command && isChannelOwner(config, channel, message)) {
    // The command and its policy change are one write: a cut can never leave the chat told one thing
    // while the policy says another, and a redelivery (which changes nothing) cannot undo a later one.
    const recorded = unwrapResult(
      await session.recordInbound({
        ...inbound,
        answer: sendCommandConfirmation(command),
        sendPolicy: command.policy,
      }),
    );
    return c.json({
      status: "command",
      sessionKey: row.key,
      sendPolicy: recorded.sendPolicy ?? "inherit",
      duplicate: recorded.duplicate,
    });
  }
  const policy = resolveSendPolicy(
    config.session.sendPolicy,
    sendPolicySubject(
      {
        sessionKey: key.key,
        chatType: message.chatType,
        ...(row.sendPolicy ? { sendPolicy: row.sendPolicy } : {}),
      },
      channel,
      keyOptions,
    ),
  );
  if (policy === "deny") {
    unwrapResult(await session.recordInbound(inbound));
    return c.json({ status: "blocked", sessionKey: row.key, error: "send blocked by session policy" }, 202);
  }
  const queued = unwrapResult(
    await session.enqueueTurn({
      runId,
      dedupeKey: inbound.messageId,
      message: { id: inbound.messageId, text: message.text, provenance: inbound.provenance },
      replyTo,
    }),
  );
  return c.json(
    { status: "accepted", runId: queued.runId, sessionKey: row.key, duplicate: queued.duplicate },
    202,
  );
});
