/**
 * Chat platforms' requests to their channels (SPEC §21), signed as each platform signs them: Telegram's
 * secret token, Slack's v0 HMAC, Discord's Ed25519 (the key pair vitest.config.ts made for this run).
 * Workerd-side; import from "../../support/platforms/inbound".
 */
import { runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { toHex } from "../../../src/auth/hmac";
import { readInboundState } from "../../../src/index-db/channel-state";
import { slackSignature } from "../../../src/platforms/slack/verify";
import { channelSecret } from "../auth";
import { BASE_URL, type HttpResult, readResult } from "../http";
import { uid } from "../ids";
import { PLATFORM_SECRETS } from "./channels-config";

const post = (channel: string, raw: string, headers: Record<string, string>) =>
  exports.default
    .fetch(`${BASE_URL}/v1/channels/${channel}/messages`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...headers },
      body: raw,
    })
    .then((response) => readResult<Record<string, unknown>>(response));

/** A Telegram webhook call, with the channel's secret token (its own, else the derived one) unless told. */
export async function postTelegram(
  channel: string,
  update: unknown,
  options: { secret?: string | null } = {},
): Promise<HttpResult<Record<string, unknown>>> {
  const secret =
    options.secret === undefined
      ? channel === "tg-cache"
        ? PLATFORM_SECRETS.TEST_TELEGRAM_SECRET
        : await channelSecret(channel)
      : options.secret;
  return post(
    channel,
    JSON.stringify(update),
    secret === null ? {} : { "X-Telegram-Bot-Api-Secret-Token": secret },
  );
}

/** A Slack Events API call signed with the signing secret at `unixSeconds` (default now). */
export async function postSlack(
  channel: string,
  body: unknown,
  options: { unixSeconds?: number; secret?: string; headers?: Record<string, string> } = {},
): Promise<HttpResult<Record<string, unknown>>> {
  const raw = JSON.stringify(body);
  const timestamp = options.unixSeconds ?? Math.floor(Date.now() / 1000);
  const signature = await slackSignature(
    options.secret ?? PLATFORM_SECRETS.TEST_SLACK_SIGNING_SECRET,
    timestamp,
    raw,
  );
  return post(channel, raw, {
    "X-Slack-Request-Timestamp": String(timestamp),
    "X-Slack-Signature": signature,
    ...options.headers,
  });
}

/** A Discord interaction signed with the test application's private key (`tamper`: the body changed after). */
export async function postDiscord(
  channel: string,
  interaction: unknown,
  options: { tamper?: boolean; signature?: string } = {},
): Promise<HttpResult<Record<string, unknown>>> {
  if (!env.TEST_DISCORD_PRIVATE_KEY) throw new Error("vitest.config.ts must bind TEST_DISCORD_PRIVATE_KEY");
  const key = await crypto.subtle.importKey(
    "jwk",
    JSON.parse(env.TEST_DISCORD_PRIVATE_KEY),
    { name: "Ed25519" },
    false,
    ["sign"],
  );
  const raw = JSON.stringify(interaction);
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signed = await crypto.subtle.sign(
    { name: "Ed25519" },
    key,
    new TextEncoder().encode(timestamp + raw),
  );
  return post(channel, options.tamper ? raw.replace("}", ',"x":1}') : raw, {
    "X-Signature-Ed25519": options.signature ?? toHex(signed),
    "X-Signature-Timestamp": timestamp,
  });
}

/** A random positive id, for Telegram's numeric ids (chats, users, messages, updates). */
export function tgId(): number {
  return Math.floor(Math.random() * 2_000_000_000) + 1;
}

/** A Telegram `Update` with one `message` (a private chat with sender 42 unless told). */
export function tgUpdate(
  message: Record<string, unknown>,
  more: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    update_id: tgId(),
    message: {
      message_id: tgId(),
      date: Math.floor(Date.now() / 1000),
      from: { id: 42, is_bot: false, first_name: "Ada", username: "ada" },
      chat: { id: 42, type: "private" },
      text: "hello",
      ...message,
    },
    ...more,
  };
}

/** A Slack `event_callback` envelope around one event (a channel message by U0ADA unless told). */
export function slackEvent(event: Record<string, unknown>): Record<string, unknown> {
  return {
    type: "event_callback",
    team_id: "T0TEAM",
    api_app_id: "A0APP",
    event_id: `Ev${uid()}`,
    event_time: Math.floor(Date.now() / 1000),
    event: {
      type: "message",
      channel: "C0GENERAL",
      channel_type: "channel",
      user: "U0ADA",
      text: "hello",
      ts: `${Math.floor(Date.now() / 1000)}.${String(tgId()).padStart(6, "0").slice(-6)}`,
      ...event,
    },
  };
}

/** The channel's inbound state (D1 `channel_state`), as `channels status` reads it. */
export const inboundState = (channel: string) => readInboundState(env.DB, channel);

/** The reply target a run recorded (its `reply_to`), read from the session object's own table. */
export async function runReplyTarget(
  sessionKey: string,
  runId: string,
): Promise<Record<string, unknown> | undefined> {
  return runInDurableObject(env.SESSION.getByName(sessionKey), (_instance, state) => {
    const row = state.storage.sql
      .exec<{ reply_to: string | null }>("SELECT reply_to FROM run WHERE run_id = ?", runId)
      .toArray()[0];
    return row?.reply_to ? (JSON.parse(row.reply_to) as Record<string, unknown>) : undefined;
  });
}
