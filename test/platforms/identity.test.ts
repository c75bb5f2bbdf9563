import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { readBotIdentity } from "../../src/index-db/channel-state";
import { botIdentity, forgetBotIdentities } from "../../src/platforms/identity";
import { recorded } from "../support";
import { PLATFORM_SECRETS } from "../support/platforms/channels-config";
import { TEST_BOTS } from "../support/platforms/identity";
import { postTelegram, tgId, tgUpdate } from "../support/platforms/inbound";

const fingerprint = async (token: string) =>
  [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token)))]
    .map((byte) => byte.toString(16).padStart(2, "0"))
    .join("")
    .slice(0, 16);

describe("the bot's identity: asked of the platform once, cached in the isolate and in D1", () => {
  it("getMe is called on first use only; a new isolate reads the stored copy", async () => {
    const group = -tgId();
    const say = (text: string) =>
      postTelegram(
        "tg-cache",
        tgUpdate({ chat: { id: group, type: "group" }, text, from: { id: tgId(), is_bot: false } }),
      );
    expect((await say("one")).json).toMatchObject({ status: "context" });
    expect((await say(`@${TEST_BOTS.telegram.username} two`)).json).toMatchObject({ status: "accepted" });
    // Replies to the channel's chats go to the same root (sendMessage): only the identity calls count here.
    const identityCalls = async () =>
      (await recorded("tg-cache")).map((call) => call.path).filter((path) => path.endsWith("/getMe"));
    expect(await identityCalls()).toEqual([
      `/identity/telegram/rec-tg-cache/bot${PLATFORM_SECRETS.TEST_TELEGRAM_TOKEN}/getMe`,
    ]);
    const stored = await readBotIdentity(
      env.DB,
      "tg-cache",
      await fingerprint(PLATFORM_SECRETS.TEST_TELEGRAM_TOKEN),
    );
    expect(stored).toEqual({ id: String(TEST_BOTS.telegram.id), username: TEST_BOTS.telegram.username });
    // A fresh isolate knows nothing but D1's row: still no second call (a call would fail: no server there).
    forgetBotIdentities();
    const source = {
      channel: "tg-cache",
      platform: "telegram" as const,
      token: PLATFORM_SECRETS.TEST_TELEGRAM_TOKEN,
      apiBaseUrl: "http://127.0.0.1:9/never-asked",
    };
    expect(await botIdentity(env.DB, source)).toEqual(stored);
    expect(await identityCalls()).toHaveLength(1);
  });

  it("a token the platform refuses gives no identity and caches nothing", async () => {
    const { fakeServicesUrl } = await import("../support");
    const source = {
      channel: `slack-bad-${tgId()}`,
      platform: "slack" as const,
      token: "xoxb-wrong",
      apiBaseUrl: `${fakeServicesUrl()}/identity/slack`,
    };
    expect(await botIdentity(env.DB, source)).toBeUndefined();
    expect(await readBotIdentity(env.DB, source.channel, await fingerprint("xoxb-wrong"))).toBeUndefined();
  });
});
