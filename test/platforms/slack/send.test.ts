import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { SLACK_LIMIT, slackMrkdwn } from "../../../src/platforms/slack/format";
import { uid } from "../../support";
import { deliverNow, platformCalls, platformMessage, platformScript } from "../../support/platforms/outbound";

const TOKEN = env.TEST_SLACK_BOT_TOKEN ?? "";
const channel = () =>
  `C${uid()
    .replace(/[^0-9A-Za-z]/g, "")
    .toUpperCase()
    .slice(0, 10)}`;

describe("Slack replies through chat.postMessage (SPEC §21)", () => {
  it("posts in the thread as mrkdwn at <apiBaseUrl>/chat.postMessage with the bot token", async () => {
    const to = channel();
    const message = platformMessage("slack-bot", {
      to: `channel:${to}`,
      threadId: "1712345678.000100",
      text: "**Done**: see [the log](https://example.com/log?a=1&b=2) & ~~old~~",
    });
    expect(await deliverNow(message)).toEqual({ kind: "delivered" });
    const [call, ...more] = await platformCalls(to);
    expect(more).toEqual([]);
    expect(call?.method).toBe("POST");
    expect(call?.path).toBe("/slack/chat.postMessage");
    expect(call?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(call?.json).toEqual({
      channel: to,
      thread_ts: "1712345678.000100",
      text: slackMrkdwn(message.text),
      mrkdwn: true,
    });
    // mrkdwn: single-asterisk bold, <url|text> links, & escaped, single-tilde strike.
    expect(String(call?.json.text).replace(/\u200b/g, "")).toBe(
      "*Done*: see <https://example.com/log?a=1&b=2|the log> &amp; ~old~",
    );
  });

  it("answers a 429 at its Retry-After, ok:false errors at once with Slack's error", async () => {
    const to = channel();
    await platformScript(to, ["rate_limit:12", "blocked", "not_found", "server_error"]);
    const message = platformMessage("slack-bot", { to });
    const before = Date.now();
    const limited = await deliverNow(message);
    expect(limited).toMatchObject({ kind: "retry", reason: "Slack chat.postMessage: ratelimited" });
    expect(limited.kind === "retry" ? limited.retryAt : 0).toBeGreaterThanOrEqual(before + 12_000);
    expect(await deliverNow(message)).toEqual({
      kind: "permanent",
      reason: "Slack chat.postMessage: not_in_channel",
    });
    expect(await deliverNow(message)).toEqual({
      kind: "permanent",
      reason: "Slack chat.postMessage: channel_not_found",
    });
    expect(await deliverNow(message)).toEqual({
      kind: "retry",
      reason: "Slack chat.postMessage: service_unavailable",
    });
  });

  it("splits a reply over 4,000 characters, keeping a code block fenced in each part", async () => {
    const to = channel();
    const code = Array.from({ length: 400 }, (_, i) => `echo line ${i}`).join("\n");
    const text = `Run this:\n\n\`\`\`sh\n${code}\n\`\`\``;
    expect(await deliverNow(platformMessage("slack-bot", { to, text }))).toEqual({ kind: "delivered" });
    const calls = await platformCalls(to);
    expect(calls.length).toBeGreaterThan(1);
    for (const call of calls) {
      const sent = String(call.json.text);
      expect(sent.length).toBeLessThanOrEqual(SLACK_LIMIT);
      expect(sent.match(/```/g)?.length).toBe(2);
    }
    const lines = calls
      .flatMap((call) => String(call.json.text).split("\n"))
      .filter((l) => l.startsWith("echo"));
    expect(lines).toEqual(code.split("\n"));
  });
});
