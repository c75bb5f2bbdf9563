import { thirdPartySecrets } from "../auth/third-party-secret";
import { signatureHeader } from "../channels/signature";
import type { SwitchboardConfig } from "../config/schema";
import { readSecret } from "../config/secrets";
import { sendDiscord } from "../platforms/discord/send";
import { sendSlack } from "../platforms/slack/send";
import { sendTelegram } from "../platforms/telegram/send";
import type { DeliveryResult } from "./delivery-result";
import type { OutboundMessage } from "./messages";

export type { DeliveryResult } from "./delivery-result";

type Channel = SwitchboardConfig["channels"][string];

/**
 * Delivers a reply, announce or update to the message's channel by its platform (SPEC §21): a `webhook`
 * channel is POSTed §8's signed JSON; a platform channel's bot calls the platform's API. `partsSent`:
 * the parts of a split reply an earlier attempt delivered, which are not sent again.
 */
export async function deliverOutbound(
  env: Env,
  config: SwitchboardConfig,
  message: OutboundMessage,
  partsSent = 0,
): Promise<DeliveryResult> {
  const channel = config.channels[message.channel];
  if (!channel || channel.platform === "webhook") return deliverWebhook(env, message, channel);
  const token = channel.botTokenEnv ? readSecret(env, channel.botTokenEnv) : undefined;
  if (!token)
    return { kind: "permanent", reason: `channel "${message.channel}": its bot token secret is not set` };
  return deliverToPlatform(channel, message, token, partsSent);
}

function deliverToPlatform(
  channel: Channel,
  message: OutboundMessage,
  token: string,
  sent: number,
): Promise<DeliveryResult> {
  switch (channel.platform) {
    case "telegram":
      return sendTelegram(message, token, channel.apiBaseUrl, sent);
    case "slack":
      return sendSlack(message, token, channel.apiBaseUrl, sent);
    default:
      return sendDiscord(
        message,
        { token, applicationId: channel.applicationId ?? "", apiBaseUrl: channel.apiBaseUrl },
        sent,
      );
  }
}

/** POSTs a reply, announce or update to the channel's webhook, signed like inbound (SPEC §8). */
async function deliverWebhook(
  env: Env,
  message: OutboundMessage,
  channel: Channel | undefined,
): Promise<DeliveryResult> {
  if (!channel?.webhookUrl)
    return { kind: "permanent", reason: `channel "${message.channel}" has no webhookUrl configured` };
  const secrets = await thirdPartySecrets(
    env,
    { use: "channel", channel: message.channel },
    channel.secretEnv,
  );
  if (!secrets.ok) return { kind: "permanent", reason: secrets.error };
  const [secret = ""] = secrets.secrets;
  // The channel's contract (SPEC §8) is the post: the ledger's bookkeeping stays with us.
  // An interaction token is a platform channel's credential: a webhook is never posted one.
  const { type: _, deliveryId: __, interaction: ___, draft: _d, retract: _r, ...payload } = message;
  const body = JSON.stringify(payload);
  let response: Response;
  try {
    response = await fetch(channel.webhookUrl, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "X-Switchboard-Signature": await signatureHeader(secret, body),
        "Idempotency-Key": message.idempotencyKey,
      },
      body,
    });
  } catch (cause) {
    return {
      kind: "retry",
      reason: `channel webhook unreachable: ${cause instanceof Error ? cause.message : String(cause)}`,
    };
  }
  await response.body?.cancel();
  if (response.ok) return { kind: "delivered" };
  const transient = response.status === 408 || response.status === 429 || response.status >= 500;
  const reason = `channel webhook answered HTTP ${response.status}`;
  return transient ? { kind: "retry", reason } : { kind: "permanent", reason };
}
