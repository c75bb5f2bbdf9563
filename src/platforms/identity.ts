import { z } from "zod";
import { toHex } from "../auth/hmac";
import type { Platform } from "../config/schema";
import { readBotIdentity, writeBotIdentity } from "../index-db/channel-state";
import type { IndexDb } from "../index-db/shards";
import type { BotIdentity } from "./inbound-types";

/** Each platform's API root when the channel sets no `apiBaseUrl` (SPEC §21). */
export const API_ROOTS: Record<Exclude<Platform, "webhook">, string> = {
  telegram: "https://api.telegram.org",
  slack: "https://slack.com/api",
  discord: "https://discord.com/api/v10",
};

const telegramMe = z.object({
  ok: z.literal(true),
  result: z.object({ id: z.number(), username: z.string() }),
});
const slackAuth = z.object({ ok: z.literal(true), user_id: z.string(), user: z.string().optional() });

// Values, not promises, per isolate: a promise made in one request must not be awaited by another.
const known = new Map<string, BotIdentity>();

/** Forgets what this isolate knows (a fresh isolate), so a test can show the stored copy is read. */
export function forgetBotIdentities(): void {
  known.clear();
}

export interface IdentitySource {
  channel: string;
  platform: "telegram" | "slack";
  token: string;
  apiBaseUrl?: string;
}

/**
 * Who the bot is, read from the platform on first use (`getMe`, `auth.test`) and cached in the isolate
 * and in D1 (`channel_state`, one primary-key read when a new isolate starts): the identity changes only
 * with the token, whose fingerprint the stored row is kept under. Undefined when the platform cannot
 * say (then only commands address the bot; nothing is cached, so the next message asks again).
 */
export async function botIdentity(db: IndexDb, source: IdentitySource): Promise<BotIdentity | undefined> {
  const fingerprint = toHex(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(source.token)),
  ).slice(0, 16);
  const cacheKey = `${source.channel}:${fingerprint}`;
  const cached = known.get(cacheKey);
  if (cached) return cached;
  const stored = await readBotIdentity(db, source.channel, fingerprint).catch(() => undefined);
  const identity = stored ?? (await askPlatform(source));
  if (!identity) return undefined;
  if (!stored)
    await writeBotIdentity(db, source.channel, fingerprint, identity, Date.now()).catch((error: unknown) =>
      console.warn(`channel ${source.channel}: bot identity not stored: ${String(error)}`),
    );
  known.set(cacheKey, identity);
  return identity;
}

async function askPlatform(source: IdentitySource): Promise<BotIdentity | undefined> {
  const root = (source.apiBaseUrl ?? API_ROOTS[source.platform]).replace(/\/+$/, "");
  try {
    if (source.platform === "telegram") {
      const response = await fetch(`${root}/bot${source.token}/getMe`, { signal: AbortSignal.timeout(2000) });
      const me = telegramMe.safeParse(await response.json());
      return me.success ? { id: String(me.data.result.id), username: me.data.result.username } : undefined;
    }
    const response = await fetch(`${root}/auth.test`, {
      method: "POST",
      headers: { Authorization: `Bearer ${source.token}` },
      signal: AbortSignal.timeout(2000),
    });
    const auth = slackAuth.safeParse(await response.json());
    return auth.success
      ? { id: auth.data.user_id, ...(auth.data.user ? { username: auth.data.user } : {}) }
      : undefined;
  } catch {
    // The token is in Telegram's URL: the error is never quoted, only that the platform did not answer.
    console.warn(`channel ${source.channel}: ${source.platform} did not say who the bot is`);
    return undefined;
  }
}
