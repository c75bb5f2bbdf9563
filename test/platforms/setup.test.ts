import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DISCORD_COMMANDS, SLACK_EVENTS, SLACK_SCOPES, TELEGRAM_UPDATES } from "../../src/platforms/setup";
import { ADMIN, AGENT_TOKENS, BASE_URL, call, channelSecret, uid } from "../support";
import { platformCalls, platformScript } from "../support/platforms/outbound";

// tg-bot, slack-bot, discord-bot: test-config.ts, against outbound-stand-in.ts.
const TG_BOT_ID = (env.TEST_TELEGRAM_BOT_TOKEN ?? "").split(":")[0];
type Json = Record<string, unknown>;

describe("channels connect and status (SPEC §21 Setup)", () => {
  it("Telegram: setWebhook with this service's URL, the channel's secret token and the update types mapped", async () => {
    const before = (await platformCalls(`webhook-${TG_BOT_ID}`)).length;
    const answer = await call<Json>("POST", "/v1/channels/tg-bot/connect", { token: ADMIN });
    expect(answer.status).toBe(200);
    const url = `${BASE_URL}/v1/channels/tg-bot/messages`;
    expect(answer.json).toEqual({
      channel: "tg-bot",
      platform: "telegram",
      done: "setWebhook",
      url,
      allowedUpdates: TELEGRAM_UPDATES,
    });
    const calls = (await platformCalls<Json>(`webhook-${TG_BOT_ID}`)).slice(before);
    expect(calls.map((c) => c.path.split("/").at(-1))).toEqual(["setWebhook"]);
    expect(calls[0]?.json).toEqual({
      url,
      secret_token: await channelSecret("tg-bot"),
      allowed_updates: ["message", "edited_message", "channel_post", "edited_channel_post"],
    });
    // The token never reaches the answer.
    expect(answer.text).not.toContain(env.TEST_TELEGRAM_BOT_TOKEN);
  });

  it("a publicUrl must be https; its origin replaces the request's", async () => {
    const http = await call<Json>("POST", "/v1/channels/tg-bot/connect", {
      token: ADMIN,
      body: { publicUrl: "http://bot.example.com" },
    });
    expect(http.status).toBe(400);
    const https = await call<Json>("POST", "/v1/channels/tg-bot/connect", {
      token: ADMIN,
      body: { publicUrl: "https://bot.example.com/ignored/path" },
    });
    expect(https.json.url).toBe("https://bot.example.com/v1/channels/tg-bot/messages");
  });

  it("Telegram's refusal is a 503 in its own words, the token masked", async () => {
    await platformScript(`webhook-${TG_BOT_ID}`, ["bad_request"]);
    const answer = await call<{ error: Json }>("POST", "/v1/channels/tg-bot/connect", { token: ADMIN });
    expect(answer.status).toBe(503);
    expect(answer.json.error.message).toBe("Telegram setWebhook: Bad Request: bad webhook");
  });

  it("Discord: PUTs /ask (one required string option text) and the message command with the bot token", async () => {
    const key = "commands-112233445566778899";
    const before = (await platformCalls(key)).length;
    const answer = await call<Json>("POST", "/v1/channels/discord-bot/connect", { token: ADMIN });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({
      platform: "discord",
      done: "commands",
      commands: ["ask", "Ask the agent"],
    });
    const [put] = (await platformCalls(key)).slice(before);
    expect(put?.method).toBe("PUT");
    expect(put?.headers.authorization).toBe(`Bot ${env.TEST_DISCORD_BOT_TOKEN}`);
    expect(JSON.parse(put?.body ?? "")).toEqual(DISCORD_COMMANDS);
    expect(DISCORD_COMMANDS[0]).toMatchObject({
      name: "ask",
      type: 1,
      options: [{ type: 3, name: "text", required: true }],
    });
    expect(DISCORD_COMMANDS[1]).toMatchObject({ type: 3 });
  });

  it("Slack: nothing is called; the manifest to paste carries this service's events URL, events and scopes", async () => {
    const answer = await call<Json>("POST", "/v1/channels/slack-bot/connect", { token: ADMIN });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({
      platform: "slack",
      done: "nothing",
      manifest: {
        oauth_config: { scopes: { bot: SLACK_SCOPES } },
        settings: {
          event_subscriptions: {
            request_url: `${BASE_URL}/v1/channels/slack-bot/messages`,
            bot_events: SLACK_EVENTS,
          },
        },
      },
    });
    expect(SLACK_EVENTS).toEqual([
      "message.im",
      "message.channels",
      "message.groups",
      "message.mpim",
      "app_mention",
    ]);
  });

  it("status: Telegram's webhook info beside our last inbound, ignored count and last delivery error", async () => {
    await call("POST", "/v1/channels/tg-bot/connect", { token: ADMIN });
    const deliveryId = uid();
    const future = Date.now() + 86_400_000;
    await env.DB.prepare(
      `INSERT INTO delivery_index (delivery_id, session_key, agent_id, kind, target, status, attempts,
         last_error, created_at, updated_at) VALUES (?, 'agent:main:tg-bot:direct:5', 'main', 'reply',
         'tg-bot:5', 'failed', 1, 'Telegram sendMessage: Forbidden: bot was blocked by the user', ?, ?)`,
    )
      .bind(deliveryId, future, future)
      .run();
    await env.DB.prepare(
      `INSERT INTO channel_state (channel, last_inbound_at, last_inbound_outcome, last_ignored_reason, ignored_count)
       VALUES ('tg-bot', 1767225600000, 'ignored', 'an edit', 3)
       ON CONFLICT (channel) DO UPDATE SET last_inbound_at = 1767225600000, last_inbound_outcome = 'ignored',
         last_ignored_reason = 'an edit', ignored_count = 3`,
    ).run();
    const status = await call<Json>("GET", "/v1/channels/tg-bot/status", { token: ADMIN });
    expect(status.status).toBe(200);
    expect(status.json).toEqual({
      channel: "tg-bot",
      platform: "telegram",
      platformView: {
        url: `${BASE_URL}/v1/channels/tg-bot/messages`,
        pending_update_count: 2,
        last_error_date: 1767225600,
        last_error_message: "Wrong response from the webhook: 503 Service Unavailable",
        allowed_updates: TELEGRAM_UPDATES,
      },
      ours: {
        lastInboundAt: 1767225600000,
        lastInboundOutcome: "ignored",
        lastIgnoredReason: "an edit",
        ignoredCount: 3,
        lastDeliveryError: {
          deliveryId,
          sessionKey: "agent:main:tg-bot:direct:5",
          target: "tg-bot:5",
          status: "failed",
          lastError: "Telegram sendMessage: Forbidden: bot was blocked by the user",
          updatedAt: future,
        },
      },
    });
  });

  it("refuses without a token (401), with an agent token (403), an unknown channel (404), a webhook channel's connect (400)", async () => {
    const none = await call("POST", "/v1/channels/tg-bot/connect");
    expect(none.status).toBe(401);
    const agent = await call("GET", "/v1/channels/tg-bot/status", { token: AGENT_TOKENS.main });
    expect(agent.status).toBe(403);
    const unknown = await call("POST", "/v1/channels/no-such-channel/connect", { token: ADMIN });
    expect(unknown.status).toBe(404);
    const webhook = await call<{ error: Json }>("POST", "/v1/channels/webchat/connect", { token: ADMIN });
    expect(webhook.status).toBe(400);
    expect(webhook.json.error.message).toContain("nothing to connect");
    const webhookStatus = await call<Json>("GET", "/v1/channels/webchat/status", { token: ADMIN });
    expect(webhookStatus.json).toMatchObject({
      platform: "webhook",
      ours: { ignoredCount: expect.any(Number) },
    });
  });
});
