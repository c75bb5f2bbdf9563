import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DISCORD_LIMIT } from "../../../src/platforms/discord/format";
import { uid } from "../../support";
import { deliverNow, platformCalls, platformMessage, platformScript } from "../../support/platforms/outbound";

const TOKEN = env.TEST_DISCORD_BOT_TOKEN ?? "";
const APP = "112233445566778899";
const snowflake = () => `9${uid().replace(/\D/g, "").slice(0, 15).padEnd(15, "7")}`;

describe("Discord replies (SPEC §21)", () => {
  it("completes the interaction's deferred @original, then follows up, while its token lives", async () => {
    const token = `itoken-${uid()}`;
    const text = `${"First part. ".repeat(150).trim()}\n\n${"Second part. ".repeat(100).trim()}`;
    const message = platformMessage("discord-bot", {
      to: `channel:${snowflake()}`,
      text,
      interaction: { token, expiresAt: Date.now() + 15 * 60_000 },
    });
    expect(await deliverNow(message)).toEqual({ kind: "delivered" });
    const calls = await platformCalls(token);
    expect(calls.map((call) => `${call.method} ${call.path}`)).toEqual([
      `PATCH /discord/webhooks/${APP}/${token}/messages/@original`,
      `POST /discord/webhooks/${APP}/${token}`,
    ]);
    for (const call of calls) {
      expect(call.headers.authorization).toBeUndefined();
      expect(String(call.json.content).length).toBeLessThanOrEqual(DISCORD_LIMIT);
      expect(call.json.allowed_mentions).toEqual({ parse: [] });
    }
    expect(calls.map((call) => call.json.content).join("\n\n")).toBe(text);
  });

  it("posts with the bot token in the channel once the interaction's 15 minutes are over", async () => {
    const channelId = snowflake();
    const message = platformMessage("discord-bot", {
      to: `channel:${channelId}`,
      text: "**late** answer",
      replyToMessageId: "1234567890",
      interaction: { token: `expired-${uid()}`, expiresAt: Date.now() - 1 },
    });
    expect(await deliverNow(message)).toEqual({ kind: "delivered" });
    const [call, ...more] = await platformCalls(channelId);
    expect(more).toEqual([]);
    expect(call?.path).toBe(`/discord/channels/${channelId}/messages`);
    expect(call?.headers.authorization).toBe(`Bot ${TOKEN}`);
    expect(call?.json).toEqual({
      content: "**late** answer",
      allowed_mentions: { parse: [] },
      message_reference: { message_id: "1234567890", fail_if_not_exists: false },
    });
  });

  it("posts in a thread, and opens the DM channel of a direct chat", async () => {
    const thread = snowflake();
    expect(
      await deliverNow(platformMessage("discord-bot", { to: `channel:${snowflake()}`, threadId: thread })),
    ).toEqual({
      kind: "delivered",
    });
    expect((await platformCalls(thread)).map((call) => call.path)).toEqual([
      `/discord/channels/${thread}/messages`,
    ]);
    const user = snowflake();
    expect(await deliverNow(platformMessage("discord-bot", { to: `direct:${user}` }))).toEqual({
      kind: "delivered",
    });
    expect((await platformCalls(`dm-open:${user}`)).map((call) => call.json)).toEqual([
      { recipient_id: user },
    ]);
    expect(await platformCalls(`dm-${user}`)).toHaveLength(1);
  });

  it("answers a 429 at its retry_after, a 403 or 404 at once with Discord's message", async () => {
    const channelId = snowflake();
    await platformScript(channelId, ["rate_limit:2.5", "blocked", "not_found", "server_error"]);
    const message = platformMessage("discord-bot", { to: `channel:${channelId}` });
    const before = Date.now();
    const limited = await deliverNow(message);
    expect(limited.kind === "retry" ? limited.retryAt : 0).toBeGreaterThanOrEqual(before + 2500);
    const route = "Discord POST /channels/{id}/messages";
    expect(await deliverNow(message)).toEqual({
      kind: "permanent",
      reason: `${route}: Missing Access (HTTP 403)`,
    });
    expect(await deliverNow(message)).toEqual({
      kind: "permanent",
      reason: `${route}: Unknown Channel (HTTP 404)`,
    });
    expect(await deliverNow(message)).toEqual({
      kind: "retry",
      reason: `${route}: Internal Server Error (HTTP 500)`,
    });
  });
});
