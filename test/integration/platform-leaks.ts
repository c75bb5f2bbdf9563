import { env } from "cloudflare:workers";
import { channelSecret } from "../support/auth";
import { PLATFORM_SECRETS } from "../support/platforms/channels-config";

/**
 * Every chat platform secret the tests configure — bot tokens, signing secrets, Telegram secret tokens
 * (tg-bot's derived one included) — for the leak checks (leak-matrix.test.ts, platform-leaks.test.ts).
 */
export async function platformSecrets(): Promise<string[]> {
  return [
    env.TEST_TELEGRAM_BOT_TOKEN,
    env.TEST_SLACK_BOT_TOKEN,
    env.TEST_DISCORD_BOT_TOKEN,
    ...Object.values(PLATFORM_SECRETS),
    await channelSecret("tg-bot"),
  ].filter((secret): secret is string => typeof secret === "string" && secret.length > 0);
}
