import { badRequest } from "../errors";
import { allowedWebhook, type WebhookSettings } from "./origin";

export {
  allowedWebhook,
  configuredOrigin,
  type OriginResult,
  type WebhookSettings,
  webhookOrigin,
} from "./origin";

/**
 * Refuses a webhook URL outside `webhooks.allowedOrigins` with a 400 naming `field` (`webhook`,
 * `delivery.url`); answers its normalized origin otherwise. Call before anything is written.
 */
export function assertAllowedWebhook(url: string, config: WebhookSettings, field = "webhook"): string {
  const allowed = allowedWebhook(url, config);
  if (!allowed.ok) throw badRequest(`${field}: ${allowed.error}`);
  return allowed.origin;
}
