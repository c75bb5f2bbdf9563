import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ADMIN, call } from "../support";
import { platformCalls, platformScript } from "../support/platforms/outbound";
import { DISCORD_APP, SLACK_AUTH } from "../support/platforms/outbound-stand-in";

// The platform's half of `GET /v1/channels/{name}/status` (SPEC §21 Setup) for Slack and Discord
// (Telegram's getWebhookInfo: setup.test.ts). slack-bot, discord-bot: test-config.ts.
type Json = Record<string, unknown>;
const DISCORD_APP_ID = "112233445566778899";

describe("channels status: the platform's view of Slack and Discord", () => {
  it("Slack: auth.test's team and bot user, asked with the bot token", async () => {
    const before = (await platformCalls("auth-test")).length;
    const status = await call<Json>("GET", "/v1/channels/slack-bot/status", { token: ADMIN });
    expect(status.status).toBe(200);
    expect(status.json).toMatchObject({ channel: "slack-bot", platform: "slack", platformView: SLACK_AUTH });
    const [asked] = (await platformCalls("auth-test")).slice(before);
    expect(asked?.headers.authorization).toBe(`Bearer ${env.TEST_SLACK_BOT_TOKEN}`);
    expect(status.text).not.toContain(env.TEST_SLACK_BOT_TOKEN);
  });

  it("Slack: a refused token is the view's error in Slack's words; our half is still there", async () => {
    await platformScript("auth-test", ["bad_request"]);
    const status = await call<Json>("GET", "/v1/channels/slack-bot/status", { token: ADMIN });
    expect(status.status).toBe(200);
    expect(status.json.platformView).toEqual({ error: "Slack auth.test: invalid_auth" });
    expect(status.json.ours).toMatchObject({ ignoredCount: expect.any(Number) });
  });

  it("Discord: the application and its interactions URL, and whether /ask is registered before and after connect", async () => {
    // An application no `connect` has registered commands for yet.
    await platformScript(`commands-${DISCORD_APP_ID}`, ["none"]);
    const before = await call<Json>("GET", "/v1/channels/discord-bot/status", { token: ADMIN });
    expect(before.json.platformView).toEqual({
      id: DISCORD_APP.id,
      name: DISCORD_APP.name,
      interactions_endpoint_url: DISCORD_APP.interactions_endpoint_url,
      bot_username: DISCORD_APP.bot.username,
      commands: [],
      ask_registered: false,
    });
    expect((await call("POST", "/v1/channels/discord-bot/connect", { token: ADMIN })).status).toBe(200);
    const after = await call<Json>("GET", "/v1/channels/discord-bot/status", { token: ADMIN });
    expect(after.json.platformView).toMatchObject({
      commands: ["ask", "Ask the agent"],
      ask_registered: true,
    });
    const [me] = (await platformCalls("app-me")).slice(-1);
    expect(me?.headers.authorization).toBe(`Bot ${env.TEST_DISCORD_BOT_TOKEN}`);
    expect(after.text).not.toContain(env.TEST_DISCORD_BOT_TOKEN);
  });

  it("Discord: a refused token is the view's error in Discord's words", async () => {
    await platformScript("app-me", ["bad_request"]);
    const status = await call<Json>("GET", "/v1/channels/discord-bot/status", { token: ADMIN });
    expect(status.status).toBe(200);
    expect(status.json.platformView).toEqual({
      error: "Discord GET applications/@me: 401: Unauthorized",
    });
  });
});
