import { thirdPartySecrets } from "../auth/third-party-secret";
import { signatureHeader } from "../channels/signature";
import type { SwitchboardConfig } from "../config/schema";
import type { OutboundMessage } from "./messages";

/** How a delivery attempt went: delivered, worth retrying, or never going to work. */
export type DeliveryResult =
  | { kind: "delivered" }
  | { kind: "retry"; reason: string }
  | { kind: "permanent"; reason: string };

/** POSTs a reply, announce or update to the channel's webhook, signed like inbound (SPEC §8). */
export async function deliverOutbound(
  env: Env,
  config: SwitchboardConfig,
  message: OutboundMessage,
): Promise<DeliveryResult> {
  const channel = config.channels[message.channel];
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
  const { type: _, deliveryId: __, ...payload } = message;
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
