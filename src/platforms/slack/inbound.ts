import { readSecret } from "../../config/secrets";
import { readShards } from "../../index-db/shards";
import { botIdentity } from "../identity";
import type { PlatformInbound } from "../platform";
import { mapSlackEnvelope, readableSlackText } from "./mapping";
import { verifySlack } from "./verify";

/** Slack's inbound half: the v0 signature, an Events API envelope, `auth.test`. */
export const slackInbound: PlatformInbound = {
  async verify(env, { settings, headers, raw, now }) {
    const secret = settings.signingSecretEnv ? readSecret(env, settings.signingSecretEnv) : undefined;
    if (!secret)
      return { ok: false, missing: `secret ${settings.signingSecretEnv ?? "signingSecretEnv"} is not set` };
    const valid = await verifySlack(
      secret,
      {
        signature: headers.get("X-Slack-Signature") ?? undefined,
        timestamp: headers.get("X-Slack-Request-Timestamp") ?? undefined,
      },
      raw,
      Math.floor(now / 1000),
    );
    return { ok: valid };
  },
  map: (body) => mapSlackEnvelope(body),
  async identity(env, { channel, settings }) {
    const token = settings.botTokenEnv ? readSecret(env, settings.botTokenEnv) : undefined;
    if (!token) return undefined;
    return botIdentity(readShards(env)[0], {
      channel,
      platform: "slack",
      token,
      ...(settings.apiBaseUrl ? { apiBaseUrl: settings.apiBaseUrl } : {}),
    });
  },
  readableText: (message, bot) => readableSlackText(message.text, bot?.id),
  threadKind: "thread",
};
