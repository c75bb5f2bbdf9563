import { thirdPartySecrets } from "../../auth/third-party-secret";
import { readSecret } from "../../config/secrets";
import { readShards } from "../../index-db/shards";
import { botIdentity } from "../identity";
import type { PlatformInbound } from "../platform";
import { mapTelegramUpdate, withoutTelegramMention } from "./mapping";
import { verifyTelegram } from "./verify";

/** Telegram's inbound half: the webhook's secret token, an `Update`, `getMe`. */
export const telegramInbound: PlatformInbound = {
  async verify(env, { channel, settings, headers }) {
    // The secret given to setWebhook: the channel's own, else a key derived for exactly this channel.
    const secrets = await thirdPartySecrets(env, { use: "channel", channel }, settings.secretTokenEnv);
    if (!secrets.ok) return { ok: false, missing: secrets.error };
    const valid = await verifyTelegram(
      headers.get("X-Telegram-Bot-Api-Secret-Token") ?? undefined,
      secrets.secrets,
    );
    return { ok: valid };
  },
  map: (body) => mapTelegramUpdate(body),
  async identity(env, { channel, settings }) {
    const token = settings.botTokenEnv ? readSecret(env, settings.botTokenEnv) : undefined;
    if (!token) return undefined;
    return botIdentity(readShards(env)[0], {
      channel,
      platform: "telegram",
      token,
      ...(settings.apiBaseUrl ? { apiBaseUrl: settings.apiBaseUrl } : {}),
    });
  },
  readableText: (message, bot) => withoutTelegramMention(message.text, bot?.username),
  threadKind: "topic",
};
