import { type ChannelDeliveryError, lastChannelDeliveryError } from "../index-db/channel-deliveries";
import { readInboundState } from "../index-db/channel-state";
import { readShards } from "../index-db/shards";
import type { ChannelSettings } from "./platform";
import { callApi } from "./send";
import { DISCORD_COMMANDS, type PlatformChannel, refused, rootOf, token } from "./setup";

/**
 * The platform's own view of a channel, for `switchboard channels status` (SPEC §21 Setup) beside ours:
 * Telegram `getWebhookInfo` (where updates go, how many wait, its last error), Slack `auth.test` (whom
 * the token belongs to, or why it is refused), Discord `GET /applications/@me` and the application's
 * commands (is `/ask` registered). The platform's own field names, picked; `{ error }` when it could not
 * be read, in the platform's words with the token masked. Never throws for the platform's sake: the
 * status page shows our half whatever the platform says.
 */
export type PlatformView = Record<string, unknown>;

/** `GET /v1/channels/{name}/status`'s answer, which the console's channel page shows too. */
export interface ChannelStatus {
  channel: string;
  platform: ChannelSettings["platform"];
  platformView?: PlatformView;
  ours: {
    lastInboundAt?: number;
    lastInboundOutcome?: string;
    lastIgnoredReason?: string;
    ignoredCount: number;
    lastDeliveryError?: ChannelDeliveryError;
  };
}

/** The channel's state: ours (D1 `channel_state`, the deliveries index) beside the platform's own view. */
export async function channelStatus(
  env: Env,
  channel: string,
  settings: ChannelSettings,
): Promise<ChannelStatus> {
  const shards = readShards(env);
  const [inbound, lastDeliveryError, view] = await Promise.all([
    readInboundState(shards[0], channel),
    lastChannelDeliveryError(shards, channel),
    settings.platform === "webhook"
      ? undefined
      : platformView(env, channel, { ...settings, platform: settings.platform }),
  ]);
  return {
    channel,
    platform: settings.platform,
    ...(view ? { platformView: view } : {}),
    ours: {
      ...(inbound?.lastInboundAt !== undefined ? { lastInboundAt: inbound.lastInboundAt } : {}),
      ...(inbound?.lastOutcome !== undefined ? { lastInboundOutcome: inbound.lastOutcome } : {}),
      ...(inbound?.lastIgnoredReason !== undefined ? { lastIgnoredReason: inbound.lastIgnoredReason } : {}),
      ignoredCount: inbound?.ignoredCount ?? 0,
      ...(lastDeliveryError ? { lastDeliveryError } : {}),
    },
  };
}

/** The fields of `from` that are set, under their own names. */
function pick(from: Record<string, unknown>, keys: readonly string[]): PlatformView {
  return Object.fromEntries(keys.filter((key) => from[key] !== undefined).map((key) => [key, from[key]]));
}

export async function platformView(
  env: Env,
  channel: string,
  settings: PlatformChannel,
): Promise<PlatformView> {
  const bot = token(env, channel, settings);
  if (settings.platform === "telegram") return telegramView(rootOf(settings), bot);
  if (settings.platform === "slack") return slackView(rootOf(settings), bot);
  return discordView(rootOf(settings), bot, settings.applicationId ?? "");
}

async function telegramView(root: string, bot: string): Promise<PlatformView> {
  const answer = await callApi(`${root}/bot${bot}/getWebhookInfo`, { method: "GET", headers: {} }, [bot]);
  if ("kind" in answer) return { error: answer.reason };
  const info = answer.json.result as Record<string, unknown> | undefined;
  if (answer.status !== 200 || answer.json.ok !== true || !info)
    return { error: refused("Telegram getWebhookInfo", answer.status, answer.json, [bot]).message };
  return pick(info, [
    "url",
    "pending_update_count",
    "last_error_date",
    "last_error_message",
    "allowed_updates",
  ]);
}

/** Slack answers a refused token with 200 and `ok: false`: its `error` (`invalid_auth`, …) is the reason. */
async function slackView(root: string, bot: string): Promise<PlatformView> {
  const headers = { Authorization: `Bearer ${bot}` };
  const answer = await callApi(`${root}/auth.test`, { method: "POST", headers }, [bot]);
  if ("kind" in answer) return { error: answer.reason };
  if (answer.status !== 200 || answer.json.ok !== true)
    return { error: refused("Slack auth.test", answer.status, answer.json, [bot]).message };
  return pick(answer.json, ["team", "team_id", "user", "user_id", "bot_id", "url"]);
}

/**
 * The application the token belongs to (and the interactions URL set on the Developer Portal, which no
 * API sets) and whether `connect` registered its commands: a missing `/ask` is why a slash command fails.
 */
async function discordView(root: string, bot: string, applicationId: string): Promise<PlatformView> {
  const headers = { Authorization: `Bot ${bot}` };
  const [me, commands] = await Promise.all([
    callApi(`${root}/applications/@me`, { method: "GET", headers }, [bot]),
    callApi(
      `${root}/applications/${encodeURIComponent(applicationId)}/commands`,
      { method: "GET", headers },
      [bot],
    ),
  ]);
  if ("kind" in me) return { error: me.reason };
  if (me.status !== 200)
    return { error: refused("Discord GET applications/@me", me.status, me.json, [bot]).message };
  const botUser = me.json.bot as Record<string, unknown> | undefined;
  const view: PlatformView = {
    ...pick(me.json, ["id", "name", "interactions_endpoint_url"]),
    ...(typeof botUser?.username === "string" ? { bot_username: botUser.username } : {}),
  };
  if ("kind" in commands) return { ...view, commands_error: commands.reason };
  if (commands.status !== 200 || !commands.list)
    return {
      ...view,
      commands_error: refused("Discord GET commands", commands.status, commands.json, [bot]).message,
    };
  const names = commands.list
    .map((command) => (command as { name?: unknown }).name)
    .filter((name): name is string => typeof name === "string");
  const ask = DISCORD_COMMANDS[0]?.name ?? "ask";
  return { ...view, commands: names, ask_registered: names.includes(ask) };
}
