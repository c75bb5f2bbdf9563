import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { splitMessage } from "../../src/platforms/split";
import { TELEGRAM_LIMIT, telegramMarkdown } from "../../src/platforms/telegram/format";
import { deliverBatch, uid } from "../support";
import {
  ledgerRowOnce,
  owePlatformPost,
  platformCalls,
  platformCallsArrived,
  platformScript,
} from "../support/platforms/outbound";

const TOKEN = env.TEST_TELEGRAM_BOT_TOKEN ?? "";
const chat = () => `-100${uid().replace(/\D/g, "").slice(0, 9) || "1"}`;
const HOUR_S = 3600;

describe("platform replies on the delivery ledger (SPEC §16, §21)", () => {
  it("delivers a long reply in parts, in order; a 429 on part 2 resumes at part 2 at retry_after, never resending part 1", async () => {
    const to = chat();
    const paragraph = (n: number) => `Part ${n}. ${"Some words to fill the part. ".repeat(120)}`.trim();
    const text = [1, 2, 3].map(paragraph).join("\n\n");
    const parts = splitMessage(text, TELEGRAM_LIMIT);
    expect(parts).toHaveLength(3);
    // An hour's retry_after: far longer than the ledger's first delay (15 s), and the Queue's own
    // redelivery never comes during the test; the test is the Queue coming back at that time.
    await platformScript(to, ["ok", `rate_limit:${HOUR_S}`]);
    const before = Date.now();
    const key = await owePlatformPost({
      text,
      target: { channel: "tg-bot", to, threadId: 9 },
      origin: { messageId: "31" },
    });
    await platformCallsArrived(to, 2);
    const waiting = await ledgerRowOnce(key, "tg-bot", (row) => row.attempts === 1, "the 429 reported");
    expect(waiting).toMatchObject({
      status: "in_progress",
      parts_sent: 1,
      last_error: `Telegram sendMessage: Too Many Requests: retry after ${HOUR_S}`,
    });
    expect(waiting.next_attempt_at).toBeGreaterThanOrEqual(before + HOUR_S * 1000);

    // The Queue redelivers the message at that time (attempt 2): parts 2 and 3 go out, part 1 does not.
    const body = { ...JSON.parse(waiting.payload ?? "{}"), deliveryId: waiting.delivery_id };
    const result = await deliverBatch([{ id: "tg-resume", body, attempts: 2 }]);
    expect(result.explicitAcks).toEqual(["tg-resume"]);
    const calls = await platformCalls(to);
    expect(calls.map((call) => call.json.text)).toEqual(
      [0, 1, 1, 2].map((index) => telegramMarkdown(parts[index] ?? "")),
    );
    expect(calls.map((call) => call.json.message_thread_id)).toEqual([9, 9, 9, 9]);
    expect(calls.map((call) => (call.json.reply_parameters as { message_id?: number })?.message_id)).toEqual([
      31,
      undefined,
      undefined,
      undefined,
    ]);
    expect(
      await ledgerRowOnce(key, "tg-bot", (row) => row.status === "delivered", "delivered"),
    ).toMatchObject({
      status: "delivered",
      parts_sent: 1,
    });
  });

  it("fails a post the platform refuses at once, with its description and never the token", async () => {
    const to = chat();
    await platformScript(to, ["blocked"]);
    const key = await owePlatformPost({ text: "hello there", target: { channel: "tg-bot", to } });
    await platformCallsArrived(to, 1);
    const row = await ledgerRowOnce(
      key,
      "tg-bot",
      (r) => r.status !== "in_progress" && r.status !== "pending",
      "settled",
    );
    expect(row).toMatchObject({
      status: "failed",
      attempts: 1,
      next_attempt_at: null,
      last_error: "Telegram sendMessage: Forbidden: bot was blocked by the user",
    });
    expect(JSON.stringify(row)).not.toContain(TOKEN);
    expect(await platformCalls(to)).toHaveLength(1);
  });

  it("retries a 5xx on the ledger's schedule", async () => {
    const to = chat();
    await platformScript(to, ["server_error"]);
    const before = Date.now();
    const key = await owePlatformPost({ text: "hello", target: { channel: "tg-bot", to } });
    await platformCallsArrived(to, 1);
    const row = await ledgerRowOnce(key, "tg-bot", (r) => r.attempts === 1, "the 5xx reported");
    expect(row).toMatchObject({ status: "in_progress", last_error: "Telegram sendMessage: Bad Gateway" });
    // The schedule's first delay: 15 s plus up to 20% jitter.
    expect(row.next_attempt_at).toBeGreaterThanOrEqual(before + 15_000);
    expect(row.next_attempt_at).toBeLessThanOrEqual(Date.now() + 18_000);
  });
});
