import { deriveKey, rootKeys } from "../auth/purpose-keys";
import { signatureHeader } from "../channels/signature";
import { allowedWebhook, type WebhookSettings } from "./origin";

/** The purpose every outbound webhook is signed for (`switchboard secret webhooks` prints its key). */
export const WEBHOOKS_PURPOSE = { use: "webhooks" } as const;

/** How one POST went: the ledger's move for it (SPEC §16). */
export type WebhookAttempt =
  | { outcome: "delivered" }
  /** Worth another attempt: the network, a 429 or a 5xx. */
  | { outcome: "retry"; error: string }
  /** Can never succeed as it is: a 4xx, a redirect, an origin no longer allowed, no signing key. */
  | { outcome: "failed"; error: string };

/**
 * POSTs a webhook body signed as SPEC §8 says (`X-Switchboard-Signature: t=…,v1=…`, HMAC-SHA256 of
 * `t.body` with the key derived for `switchboard/webhooks/v1`), with its `Idempotency-Key` so the
 * receiver can drop a redelivery. The origin is checked again at each attempt (the configuration may have
 * changed since the URL was accepted), and redirects are not followed: a 3xx could lead anywhere.
 */
export async function postSignedWebhook(
  env: Pick<Env, "SWITCHBOARD_SIGNING_KEY" | "SWITCHBOARD_SIGNING_KEY_PREVIOUS">,
  config: WebhookSettings,
  webhook: { url: string; body: string; idempotencyKey: string },
): Promise<WebhookAttempt> {
  const allowed = allowedWebhook(webhook.url, config);
  if (!allowed.ok) return { outcome: "failed", error: `webhook URL refused: ${allowed.error}` };
  const [root] = rootKeys(env);
  if (!root) return { outcome: "failed", error: "secret SWITCHBOARD_SIGNING_KEY is not set" };
  const key = await deriveKey(root, WEBHOOKS_PURPOSE);
  let response: Response;
  try {
    response = await fetch(webhook.url, {
      method: "POST",
      redirect: "manual",
      headers: {
        "Content-Type": "application/json",
        "Idempotency-Key": webhook.idempotencyKey,
        "X-Switchboard-Signature": await signatureHeader(key, webhook.body),
      },
      body: webhook.body,
    });
  } catch (cause) {
    return { outcome: "retry", error: `webhook ${allowed.origin} unreachable: ${(cause as Error).message}` };
  }
  await response.body?.cancel();
  if (response.ok) return { outcome: "delivered" };
  const error = `webhook ${allowed.origin} answered HTTP ${response.status}`;
  return response.status === 429 || response.status >= 500
    ? { outcome: "retry", error }
    : { outcome: "failed", error };
}
