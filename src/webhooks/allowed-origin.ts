import { badRequest } from "../errors";

/**
 * What the check reads of the configuration. A minimal stand-in for helper h32c's module of the same path
 * (WHATWG-normalized origins, `webhooks.allowedOrigins` in the config schema): until that is merged no
 * origin is configured here, so every webhook URL is refused, which is SPEC §22's default (none).
 */
export type WebhookSettings = object;

/** `webhooks.allowedOrigins`, read from a configuration that may not have the key yet. */
function allowedOrigins(config: WebhookSettings): readonly string[] {
  return (config as { webhooks?: { allowedOrigins?: readonly string[] } }).webhooks?.allowedOrigins ?? [];
}

/** The origin of an http(s) URL without userinfo (`https://hooks.example.com:8443`), or undefined. */
function originOf(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return undefined;
  if (parsed.username !== "" || parsed.password !== "") return undefined;
  return parsed.origin;
}

/**
 * Refuses a webhook URL outside `webhooks.allowedOrigins` with a 400 naming `field` (`webhook`,
 * `delivery.url`); answers its origin otherwise. Call before anything is written.
 */
export function assertAllowedWebhook(url: string, config: WebhookSettings, field = "webhook"): string {
  const origin = originOf(url);
  if (!origin) throw badRequest(`${field}: not an http(s) URL without a user name`);
  if (!allowedOrigins(config).includes(origin))
    throw badRequest(`${field}: origin ${origin} is not in webhooks.allowedOrigins`);
  return origin;
}
