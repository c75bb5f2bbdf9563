import { describe, expect, it } from "vitest";
import { TELEGRAM_LIMIT } from "../../src/platforms/telegram/format";
import { uid } from "../support";
import { deliverNow, platformCalls, platformMessage, platformScript } from "../support/platforms/outbound";

/**
 * A reply written into a draft (SPEC §21 Live): its delivery edits the draft instead of posting (the
 * edit is the delivery), a repeated attempt edits again and never posts a second message, a reply past
 * the limit makes the draft its part 1, and a reply-less run's draft is retracted.
 */
const chat = () => `-100${uid().replace(/\D/g, "").slice(0, 9) || "1"}`;
const methodOf = (path: string) => path.split("/").pop() ?? "";

describe("a reply delivered into its draft", () => {
  it("Telegram: editMessageText is the delivery; a repeated attempt (not modified) edits, never posts", async () => {
    const to = chat();
    const message = platformMessage("tg-bot", {
      to: `group:${to}`,
      text: "Done.",
      draft: { messageId: "501" },
    });
    expect(await deliverNow(message)).toEqual({ kind: "delivered" });
    await platformScript(to, ["not_modified"]);
    expect(await deliverNow(message)).toEqual({ kind: "delivered" });
    const calls = await platformCalls(to);
    expect(calls.map((call) => methodOf(call.path))).toEqual(["editMessageText", "editMessageText"]);
    expect(calls[0]?.json).toEqual({
      chat_id: to,
      message_id: 501,
      text: "Done\\.",
      parse_mode: "MarkdownV2",
    });
  });

  it("Telegram: a reply past the limit edits the draft into part 1 and posts the rest once, in order", async () => {
    const to = chat();
    const paragraph = `${"word ".repeat(700).trim()}.`;
    const text = [paragraph, paragraph, paragraph].join("\n\n");
    expect(text.length).toBeGreaterThan(TELEGRAM_LIMIT);
    const message = platformMessage("tg-bot", { to: `group:${to}`, text, draft: { messageId: "502" } });
    expect(await deliverNow(message)).toEqual({ kind: "delivered" });
    const methods = (await platformCalls(to)).map((call) => methodOf(call.path));
    expect(methods[0]).toBe("editMessageText");
    expect(methods.slice(1).length).toBeGreaterThanOrEqual(1);
    expect(methods.slice(1).every((method) => method === "sendMessage")).toBe(true);
  });

  it("Telegram: a retraction deletes the draft and posts nothing", async () => {
    const to = chat();
    const message = platformMessage("tg-bot", {
      to: `group:${to}`,
      text: "",
      draft: { messageId: "503" },
      retract: true,
    });
    expect(await deliverNow(message)).toEqual({ kind: "delivered" });
    const calls = await platformCalls(to);
    expect(calls.map((call) => methodOf(call.path))).toEqual(["deleteMessage"]);
    expect(calls[0]?.json).toEqual({ chat_id: to, message_id: 503 });
  });

  it("Slack: chat.update completes the draft; a retraction is chat.delete", async () => {
    const channel = `C${uid().toUpperCase()}`;
    const ts = "1700000000.000900";
    const reply = platformMessage("slack-bot", { to: channel, text: "**Done**", draft: { messageId: ts } });
    expect(await deliverNow(reply)).toEqual({ kind: "delivered" });
    const retract = platformMessage("slack-bot", {
      to: channel,
      text: "",
      draft: { messageId: ts },
      retract: true,
    });
    expect(await deliverNow(retract)).toEqual({ kind: "delivered" });
    const calls = await platformCalls(channel);
    expect(calls.map((call) => call.path)).toEqual(["/slack/chat.update", "/slack/chat.delete"]);
    expect(calls[0]?.json).toEqual({ channel, ts, text: "*Done*", mrkdwn: true });
    expect(calls[1]?.json).toEqual({ channel, ts });
  });

  it("Discord: a retraction deletes the interaction's @original", async () => {
    const token = `interaction-token-${uid()}`;
    const message = platformMessage("discord-bot", {
      to: "700",
      text: "",
      interaction: { token, expiresAt: Date.now() + 60_000 },
      draft: { messageId: "@original" },
      retract: true,
    });
    expect(await deliverNow(message)).toEqual({ kind: "delivered" });
    const calls = await platformCalls(token);
    expect(calls.map((call) => `${call.method} ${call.path}`)).toEqual([
      `DELETE /discord/webhooks/112233445566778899/${token}/messages/@original`,
    ]);
  });
});
