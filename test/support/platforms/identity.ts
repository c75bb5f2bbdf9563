/**
 * The platforms' identity calls, for the fake services server (fake-services-server.ts routes
 * `/identity/<platform>/rec-<id>/…` here): Telegram `getMe` at `<root>/bot<token>/getMe` and Slack
 * `auth.test` at `<root>/auth.test` (Bearer token), each answering for the tests' bot token only, as
 * the platforms do. The outbound methods (sendMessage, chat.postMessage, …) live in their own file.
 * Plain TypeScript, no Node API.
 */
import { PLATFORM_SECRETS } from "./channels-config";

/** The bot the stand-ins say the tests' tokens belong to. */
export const TEST_BOTS = {
  telegram: { id: 7001, username: "switchboard_test_bot" },
  slack: { userId: "U0SWITCH", user: "switchboard", botId: "B0SWITCH" },
} as const;

type IdentityReply = { status: number; body: unknown };

/** The answer to an identity call, or undefined when the path is not one. */
export function identityReply(
  platform: string,
  rest: readonly string[],
  authorization: string | undefined,
): IdentityReply | undefined {
  const method = rest.at(-1);
  if (platform === "telegram" && method === "getMe") {
    if (rest.at(-2) !== `bot${PLATFORM_SECRETS.TEST_TELEGRAM_TOKEN}`)
      return { status: 401, body: { ok: false, error_code: 401, description: "Unauthorized" } };
    const bot = TEST_BOTS.telegram;
    return {
      status: 200,
      body: {
        ok: true,
        result: { id: bot.id, is_bot: true, first_name: "Switchboard", username: bot.username },
      },
    };
  }
  if (platform === "slack" && method === "auth.test") {
    // Slack answers 200 with ok: false for a bad token.
    if (authorization !== `Bearer ${PLATFORM_SECRETS.TEST_SLACK_TOKEN}`)
      return { status: 200, body: { ok: false, error: "invalid_auth" } };
    const bot = TEST_BOTS.slack;
    return {
      status: 200,
      body: {
        ok: true,
        url: "https://test.slack.com/",
        team_id: "T0TEAM",
        user_id: bot.userId,
        user: bot.user,
        bot_id: bot.botId,
      },
    };
  }
  return undefined;
}
