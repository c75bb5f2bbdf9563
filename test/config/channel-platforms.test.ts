import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/load";

function channelResult(channel: Record<string, unknown>) {
  return parseConfig(JSON.stringify({ channels: { tg: channel } }));
}

describe("channels.<name>.platform (SPEC §21)", () => {
  it("defaults a channel to the signed-webhook platform with §21's group and busy defaults", () => {
    const result = channelResult({ webhookUrl: "https://bridge.example/out" });
    if (!result.ok) throw new Error(result.error);
    expect(result.config.channels.tg).toMatchObject({
      platform: "webhook",
      groupActivation: "mention",
      groupHistoryLimit: 50,
      allowFrom: [],
      busy: "queue",
      debounceMs: 1500,
    });
  });

  it("names each key a platform cannot work without", () => {
    const telegram = channelResult({ platform: "telegram" });
    expect(telegram.ok ? "" : telegram.error).toContain("botTokenEnv: required for platform");
    const slack = channelResult({ platform: "slack", botTokenEnv: "SLACK_BOT_TOKEN" });
    expect(slack.ok ? "" : slack.error).toContain("signingSecretEnv: required for platform");
    const discord = channelResult({ platform: "discord", botTokenEnv: "DISCORD_BOT_TOKEN" });
    expect(discord.ok ? "" : discord.error).toMatch(/publicKey: required.*applicationId: required/);
  });

  it("refuses a webhookUrl on a platform channel, and a debounce past 10 s", () => {
    const withUrl = channelResult({
      platform: "telegram",
      botTokenEnv: "TG",
      webhookUrl: "https://x.example",
    });
    expect(withUrl.ok ? "" : withUrl.error).toContain("webhookUrl: only for platform");
    const slow = channelResult({ platform: "telegram", botTokenEnv: "TG", debounceMs: 10_001 });
    expect(slow.ok ? "" : slow.error).toContain("debounceMs");
  });

  it("accepts a complete Discord channel", () => {
    const result = channelResult({
      platform: "discord",
      botTokenEnv: "DISCORD_BOT_TOKEN",
      publicKey: "a".repeat(64),
      applicationId: "123456789012345678",
    });
    expect(result.ok).toBe(true);
  });
});
