import { thirdPartySecrets } from "../auth/third-party-secret";
import { readSecret } from "../config/secrets";
import { AppError, badRequest } from "../errors";
import { API_ROOTS } from "./identity";
import type { ChannelSettings } from "./platform";
import { callApi, masked } from "./send";

/**
 * `switchboard channels connect|status` (SPEC §21 Setup), done here in the Worker because the bot's
 * secrets live here: what each platform lets us set by API (Telegram's webhook, Discord's commands),
 * what must be pasted by hand (Slack's app manifest), and the platform's own view of the channel.
 * Every call goes to the channel's API root (its `apiBaseUrl`), never to an address a request gives;
 * tokens never reach an answer or a log (every platform text is masked).
 */

/** The update types Telegram is asked for: the ones `telegram/mapping.ts` reads (edits to ignore them). */
export const TELEGRAM_UPDATES = ["message", "edited_message", "channel_post", "edited_channel_post"];

/** Discord's application commands (`discord/mapping.ts` reads both): `/ask <text>` and a message command. */
export const DISCORD_COMMANDS = [
  {
    name: "ask",
    type: 1,
    description: "Ask the agent",
    options: [{ type: 3, name: "text", description: "What to ask", required: true }],
  },
  { name: "Ask the agent", type: 3 },
];

/** The bot events and scopes a Slack app needs for what `slack/mapping.ts` and `slack/send.ts` do. */
export const SLACK_EVENTS = [
  "message.im",
  "message.channels",
  "message.groups",
  "message.mpim",
  "app_mention",
];
export const SLACK_SCOPES = [
  "chat:write",
  "im:history",
  "channels:history",
  "groups:history",
  "mpim:history",
  "app_mentions:read",
  "users:read",
];

export type PlatformChannel = ChannelSettings & { platform: "telegram" | "slack" | "discord" };

export type ConnectAnswer =
  | { platform: "telegram"; done: "setWebhook"; url: string; allowedUpdates: string[] }
  | { platform: "discord"; done: "commands"; commands: string[] }
  | { platform: "slack"; done: "nothing"; url: string; manifest: Record<string, unknown>; paste: string };

export function token(env: Env, channel: string, settings: PlatformChannel): string {
  const name = settings.botTokenEnv;
  const value = name ? readSecret(env, name) : undefined;
  if (!value)
    throw new AppError("unavailable", `channel ${channel}: secret ${name ?? "botTokenEnv"} is not set`);
  return value;
}

export const rootOf = (settings: PlatformChannel) =>
  (settings.apiBaseUrl ?? API_ROOTS[settings.platform]).replace(/\/+$/, "");

/** A platform call that failed: 503 with the platform's own words, the token masked. */
export function refused(
  what: string,
  status: number,
  json: Record<string, unknown>,
  secrets: string[],
): AppError {
  const words = [json.description, json.message, json.error].find((value) => typeof value === "string");
  return new AppError("unavailable", masked(`${what}: ${words ?? `HTTP ${status}`}`, secrets));
}

/** Does what the platform allows by API for `channel`, whose inbound URL is `url`. */
export async function connectChannel(
  env: Env,
  channel: string,
  settings: ChannelSettings,
  url: string,
): Promise<ConnectAnswer> {
  if (settings.platform === "webhook")
    throw badRequest(
      `channel ${channel} is a webhook channel: there is nothing to connect (its bridge posts signed JSON to ${url})`,
    );
  const platform = settings as PlatformChannel;
  const root = rootOf(platform);
  if (platform.platform === "slack") return slackManifest(channel, url);
  const bot = token(env, channel, platform);
  if (platform.platform === "telegram") {
    const secret = await thirdPartySecrets(env, { use: "channel", channel }, platform.secretTokenEnv);
    if (!secret.ok) throw new AppError("unavailable", `channel ${channel}: ${secret.error}`);
    const body = { url, secret_token: secret.secrets[0], allowed_updates: TELEGRAM_UPDATES };
    const answer = await callApi(`${root}/bot${bot}/setWebhook`, { method: "POST", headers: {}, body }, [
      bot,
    ]);
    if ("kind" in answer) throw new AppError("unavailable", answer.reason);
    if (answer.status !== 200 || answer.json.ok !== true)
      throw refused("Telegram setWebhook", answer.status, answer.json, [bot, secret.secrets[0] ?? ""]);
    return { platform: "telegram", done: "setWebhook", url, allowedUpdates: TELEGRAM_UPDATES };
  }
  // Discord: a PUT replaces the application's global commands with exactly these (idempotent).
  const path = `/applications/${encodeURIComponent(platform.applicationId ?? "")}/commands`;
  const headers = { Authorization: `Bot ${bot}` };
  const answer = await callApi(`${root}${path}`, { method: "PUT", headers, body: DISCORD_COMMANDS }, [bot]);
  if ("kind" in answer) throw new AppError("unavailable", answer.reason);
  if (answer.status < 200 || answer.status >= 300)
    throw refused("Discord PUT commands", answer.status, answer.json, [bot]);
  return { platform: "discord", done: "commands", commands: DISCORD_COMMANDS.map((command) => command.name) };
}

/** The Slack app manifest to paste (api.slack.com/apps → Create New App → From a manifest). */
function slackManifest(channel: string, url: string): ConnectAnswer {
  const manifest = {
    display_information: { name: `Switchboard ${channel}` },
    features: { bot_user: { display_name: `switchboard-${channel}`, always_online: true } },
    oauth_config: { scopes: { bot: SLACK_SCOPES } },
    settings: {
      event_subscriptions: { request_url: url, bot_events: SLACK_EVENTS },
      org_deploy_enabled: false,
      socket_mode_enabled: false,
      token_rotation_enabled: false,
    },
  };
  const paste =
    "Slack has no API to set a bot's event URL: create the app from this manifest, install it to the workspace, " +
    "then set its Bot User OAuth Token and Signing Secret as the secrets botTokenEnv and signingSecretEnv name.";
  return { platform: "slack", done: "nothing", url, manifest, paste };
}
