import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { TELEGRAM_LIMIT, telegramMarkdown } from "../../../src/platforms/telegram/format";
import { sendTelegram } from "../../../src/platforms/telegram/send";
import { fakeServicesUrl, uid } from "../../support";
import { deliverNow, platformCalls, platformMessage, platformScript } from "../../support/platforms/outbound";

const TOKEN = env.TEST_TELEGRAM_BOT_TOKEN ?? "";
const chat = () => `-100${uid().replace(/\D/g, "").slice(0, 9) || "1"}`;

describe("Telegram replies through sendMessage (SPEC §21)", () => {
  it("posts in the topic, quoting the message it answers, as MarkdownV2 at <apiBaseUrl>/bot<token>/sendMessage", async () => {
    const to = chat();
    const message = platformMessage("tg-bot", {
      to: `group:${to}`,
      threadId: 42,
      replyToMessageId: "77",
      text: "**Hello** world. Version 1.5 is _out_.",
    });
    expect(await deliverNow(message)).toEqual({ kind: "delivered" });
    const [call, ...more] = await platformCalls(to);
    expect(more).toEqual([]);
    expect(call?.method).toBe("POST");
    expect(call?.path).toBe(`/telegram/bot${TOKEN}/sendMessage`);
    expect(call?.headers["content-type"]).toContain("application/json");
    expect(call?.json).toEqual({
      chat_id: to,
      message_thread_id: 42,
      reply_parameters: { message_id: 77, allow_sending_without_reply: true },
      text: "*Hello* world\\. Version 1\\.5 is _out_\\.",
      parse_mode: "MarkdownV2",
    });
  });

  it("converts Markdown to MarkdownV2: code, links and reserved characters", () => {
    expect(telegramMarkdown("Use `npm test` (see [docs](https://example.com/a_b)) - done!")).toBe(
      "Use `npm test` \\(see [docs](https://example.com/a_b)\\) \\- done\\!",
    );
    expect(telegramMarkdown("```ts\nconst a = 1;\n```")).toBe("```ts\nconst a = 1;\n```");
  });

  it("sends a part whose formatting Telegram refuses again as plain text, as the same part", async () => {
    const to = chat();
    await platformScript(to, [], { rejectFormatting: true });
    const text = "Version 1.5 *is* out.";
    expect(await deliverNow(platformMessage("tg-bot", { to, text }))).toEqual({ kind: "delivered" });
    const calls = await platformCalls(to);
    expect(calls.map((call) => call.json)).toEqual([
      { chat_id: to, text: telegramMarkdown(text), parse_mode: "MarkdownV2" },
      { chat_id: to, text },
    ]);
  });

  it("answers a 429 with its retry_after, a 5xx with the schedule, a block at once; the token never in a reason", async () => {
    const to = chat();
    await platformScript(to, ["rate_limit:7", "server_error", "blocked", "not_found"]);
    const message = platformMessage("tg-bot", { to });
    const before = Date.now();
    const limited = await deliverNow(message);
    expect(limited).toMatchObject({
      kind: "retry",
      reason: "Telegram sendMessage: Too Many Requests: retry after 7",
    });
    const retryAt = limited.kind === "retry" ? (limited.retryAt ?? 0) : 0;
    expect(retryAt).toBeGreaterThanOrEqual(before + 7000);
    expect(retryAt).toBeLessThanOrEqual(Date.now() + 7000);
    expect(await deliverNow(message)).toEqual({ kind: "retry", reason: "Telegram sendMessage: Bad Gateway" });
    expect(await deliverNow(message)).toEqual({
      kind: "permanent",
      reason: "Telegram sendMessage: Forbidden: bot was blocked by the user",
    });
    expect(await deliverNow(message)).toEqual({
      kind: "permanent",
      reason: "Telegram sendMessage: Bad Request: chat not found",
    });
  });

  it("keeps the token out of a network failure's reason (the token is in the URL)", async () => {
    const message = platformMessage("tg-bot", { to: chat() });
    // The fake services drop the connection unanswered (scenario `hangup`).
    const result = await sendTelegram(message, TOKEN, `${fakeServicesUrl()}/down/hangup`, 0);
    expect(result.kind).toBe("retry");
    expect(JSON.stringify(result)).not.toContain(TOKEN);
  });

  it("splits a reply over 4,096 characters into parts sent in order", async () => {
    const to = chat();
    const paragraph = (n: number) => `Paragraph ${n}. ${"All work and no play. ".repeat(120)}`.trim();
    const text = [1, 2, 3].map(paragraph).join("\n\n");
    expect(await deliverNow(platformMessage("tg-bot", { to, text, replyToMessageId: "5" }))).toEqual({
      kind: "delivered",
    });
    const calls = await platformCalls(to);
    expect(calls.map((call) => call.json.text)).toEqual([1, 2, 3].map((n) => telegramMarkdown(paragraph(n))));
    // Telegram counts the text after its entities are parsed: each part's Markdown is within the limit.
    for (const n of [1, 2, 3]) expect(paragraph(n).length).toBeLessThanOrEqual(TELEGRAM_LIMIT);
    // Only the first part quotes the question.
    expect(calls.map((call) => "reply_parameters" in call.json)).toEqual([true, false, false]);
  });
});
