/**
 * The one origin check of every outbound webhook Switchboard is asked to call (SPEC §22): run webhooks
 * (`webhook` on chat.send and sessions_spawn), and cron and hook deliveries in `webhook` mode
 * (`delivery.url`). A URL is allowed only when its origin equals one of `webhooks.allowedOrigins`, so no
 * request makes Switchboard call an address its operator did not allow.
 */

/** What the check reads of the configuration (its `webhooks` part; the config schema imports this module). */
export interface WebhookSettings {
  webhooks: { allowedOrigins: readonly string[] };
}

/** Why a URL is refused, or its normalized origin (`https://hooks.example.com:8443`). */
export type OriginResult = { ok: true; origin: string } | { ok: false; error: string };

/**
 * The origin of a URL after the WHATWG parser's normalizing (scheme and host lower-cased, IDN to
 * punycode, default ports dropped, IPv4 shorthand and hex to dotted decimal, IPv6 compressed), with a
 * trailing dot of the host dropped too: `https://Example.COM.:443/x` is `https://example.com`. Only http
 * and https; userinfo is refused rather than dropped, so `https://allowed.com@evil.com/` can never read as
 * the allowed host to a person and another to the parser.
 */
export function webhookOrigin(url: string): OriginResult {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, error: "is not a URL" };
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:")
    return { ok: false, error: `scheme ${parsed.protocol.slice(0, 20)} is not http or https` };
  // `http://@host/` parses to empty userinfo; anything before an `@` in the authority is refused.
  if (parsed.username !== "" || parsed.password !== "" || authority(url).includes("@"))
    return { ok: false, error: "must not carry a user name or password" };
  const host = parsed.hostname.replace(/\.$/, "");
  if (host === "") return { ok: false, error: "has no host" };
  return { ok: true, origin: `${parsed.protocol}//${host}${parsed.port ? `:${parsed.port}` : ""}` };
}

/** The authority part of a URL as written (between `//` and the path): where userinfo would be. */
function authority(url: string): string {
  const afterScheme = url.replace(/^[^:]*:[/\\]*/, "");
  return afterScheme.split(/[/\\?#]/)[0] ?? "";
}

/** An `allowedOrigins` entry as configured: an origin alone (a trailing `/` is allowed), normalized. */
export function configuredOrigin(entry: string): OriginResult {
  const origin = webhookOrigin(entry);
  if (!origin.ok) return origin;
  const parsed = new URL(entry);
  if ((parsed.pathname !== "/" && parsed.pathname !== "") || parsed.search !== "" || parsed.hash !== "")
    return { ok: false, error: "must be an origin (scheme, host, port) without a path, query or fragment" };
  return origin;
}

/** Whether `url` may be called: its origin is one the operator allowed. */
export function allowedWebhook(url: string, config: WebhookSettings): OriginResult {
  const origin = webhookOrigin(url);
  if (!origin.ok) return origin;
  return config.webhooks.allowedOrigins.includes(origin.origin)
    ? origin
    : {
        ok: false,
        error: `origin ${origin.origin} is not in webhooks.allowedOrigins`,
      };
}
