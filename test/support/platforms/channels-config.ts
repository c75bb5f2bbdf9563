/**
 * The chat platform channels of the test configuration (test-config.ts; SPEC §21), read by
 * vitest.config.ts. Their API root is the fake services' identity stand-in (identity.ts), each under a
 * recording of its own (`rec-<channel>`), so a test can count the `getMe`/`auth.test` calls.
 */
export const PLATFORM_SECRETS = {
  TEST_TELEGRAM_TOKEN: "7001:test-telegram-token",
  TEST_TELEGRAM_SECRET: "tg-secret-token_0123456789",
  TEST_SLACK_TOKEN: "xoxb-test-slack-token",
  TEST_SLACK_SIGNING_SECRET: "slack-signing-secret-0123456789",
  TEST_DISCORD_TOKEN: "test-discord-bot-token",
} as const;

/** The Discord application of the tests: its id, and a bot user the stand-in knows. */
export const DISCORD_APPLICATION_ID = "900000000000000001";

export function platformChannels(fakeServicesUrl: string, discordPublicKey: string): Record<string, unknown> {
  const root = (platform: string, channel: string) =>
    `${fakeServicesUrl}/identity/${platform}/rec-${channel}`;
  const telegram = (channel: string, more: Record<string, unknown> = {}) => ({
    platform: "telegram",
    botTokenEnv: "TEST_TELEGRAM_TOKEN",
    apiBaseUrl: root("telegram", channel),
    agentId: "main",
    ...more,
  });
  const slack = (channel: string, more: Record<string, unknown> = {}) => ({
    platform: "slack",
    botTokenEnv: "TEST_SLACK_TOKEN",
    signingSecretEnv: "TEST_SLACK_SIGNING_SECRET",
    apiBaseUrl: root("slack", channel),
    agentId: "main",
    ...more,
  });
  const discord = (more: Record<string, unknown> = {}) => ({
    platform: "discord",
    botTokenEnv: "TEST_DISCORD_TOKEN",
    publicKey: discordPublicKey,
    applicationId: DISCORD_APPLICATION_ID,
    agentId: "main",
    ...more,
  });
  return {
    // The secret token derived for the channel (no secretTokenEnv).
    "tg-in": telegram("tg-in"),
    "tg-always": telegram("tg-always", { groupActivation: "always" }),
    "tg-allow": telegram("tg-allow", { allowFrom: ["1001"] }),
    // Its own secret token; its identity calls counted by the cache test alone.
    "tg-cache": telegram("tg-cache", { secretTokenEnv: "TEST_TELEGRAM_SECRET" }),
    // The console's channel view reads this one's settings and state (test/console/pages/channels.test.ts).
    "tg-console": telegram("tg-console", { busy: "collect", debounceMs: 800, streaming: "off" }),
    "slack-in": slack("slack-in"),
    // What the model is sent, with a short group history: the context test reads both.
    "slack-groups": slack("slack-groups", { agentId: "platform-echo-rec", groupHistoryLimit: 3 }),
    "slack-allow": slack("slack-allow", { allowFrom: ["UALLOWED"] }),
    "discord-in": discord(),
    "discord-allow": discord({ allowFrom: ["111"] }),
  };
}
