import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { verifySignatureHeader } from "../../src/channels/signature";
import type { OutboundMessage } from "../../src/queue/messages";
import { channelSecret, deliverBatch, deliveries, uid } from "../support";

function outbound(channel: string, fields: Partial<OutboundMessage> = {}): OutboundMessage {
  const runId = crypto.randomUUID();
  return {
    type: "outbound",
    channel,
    to: "channel:C0123ABC",
    text: `hello ${channel}`,
    sessionKey: `agent:main:${channel}:channel:q${uid()}`,
    runId,
    idempotencyKey: `${runId}:reply`,
    ...fields,
  };
}

/** The Worker's bindings with DEAD_LETTERS replaced by a recorder: the DLQ has no consumer to read. */
function withDeadLetterRecorder(): { bindings: Env; deadLetters: unknown[] } {
  const deadLetters: unknown[] = [];
  const recorder = {
    send: async (body: unknown) => {
      deadLetters.push(body);
    },
    sendBatch: async () => {
      throw new Error("not used");
    },
  };
  return { bindings: { ...env, DEAD_LETTERS: recorder as unknown as Queue }, deadLetters };
}

describe("outbound deliveries through the queue consumer", () => {
  it("retries a failing channel webhook by the schedule, then acks: one successful post per idempotencyKey", async () => {
    // slack's webhook (fake `flaky/2`) answers 500 twice per idempotencyKey, then 200.
    const message = outbound("slack");
    const attempt = (attempts: number) => deliverBatch([{ id: "slack-1", body: message, attempts }]);

    // A post no ledger record answers for (one queued before the ledger) follows the one schedule alone:
    // 15 s doubling, plus up to 20% jitter.
    const first = await attempt(1);
    expect(first).toEqual({
      outcome: "ok",
      ackAll: false,
      retryBatch: { retry: false },
      explicitAcks: [],
      retryMessages: [{ msgId: "slack-1" }],
      delays: { "slack-1": expect.any(Number) },
    });
    expect(first.delays["slack-1"]).toBeGreaterThanOrEqual(15);
    expect(first.delays["slack-1"]).toBeLessThanOrEqual(18);
    const second = await attempt(2);
    expect(second).toMatchObject({ explicitAcks: [], retryMessages: [{ msgId: "slack-1" }] });
    expect(second.delays["slack-1"]).toBeGreaterThanOrEqual(30);
    expect(second.delays["slack-1"]).toBeLessThanOrEqual(36);
    expect(await attempt(3)).toMatchObject({ explicitAcks: ["slack-1"], retryMessages: [], delays: {} });

    const posts = await deliveries(message.sessionKey);
    expect(posts).toHaveLength(3);
    const { type: _, ...payload } = message;
    for (const post of posts) {
      expect(post.json).toEqual(payload);
      expect(post.headers["idempotency-key"]).toBe(message.idempotencyKey);
      expect(
        await verifySignatureHeader(
          await channelSecret(message.channel),
          post.headers["x-switchboard-signature"],
          post.body,
        ),
      ).toBe(true);
    }
  });

  it("acks and retries each message of a batch on its own", async () => {
    const fine = outbound("telegram", { to: "-100777" });
    const flaky = outbound("slack");
    const result = await deliverBatch([
      { id: "ok-1", body: fine, attempts: 1 },
      { id: "flaky-1", body: flaky, attempts: 1 },
    ]);
    expect(result.ackAll).toBe(false);
    expect(result.explicitAcks).toEqual(["ok-1"]);
    expect(result.retryMessages).toEqual([{ msgId: "flaky-1" }]);
    expect(result.delays["flaky-1"]).toBeGreaterThanOrEqual(15);
    expect((await deliveries(fine.sessionKey)).map((post) => post.json.text)).toEqual(["hello telegram"]);
  });

  it("dead-letters what can never be delivered instead of acking it silently", async () => {
    const { bindings, deadLetters } = withDeadLetterRecorder();
    const noWebhook = outbound("sms", { to: "+15550100" });
    const unknownChannel = outbound("pager");
    const noSession = {
      type: "send",
      targetKey: `agent:main:gone-${uid()}`,
      turn: { runId: crypto.randomUUID(), message: { text: "hi", provenance: { kind: "inter_session" } } },
    };
    const garbage = { type: "outbound", channel: "slack" };
    const result = await deliverBatch(
      [
        { id: "sms-1", body: noWebhook, attempts: 1 },
        { id: "pager-1", body: unknownChannel, attempts: 1 },
        { id: "send-1", body: noSession, attempts: 1 },
        { id: "junk-1", body: garbage, attempts: 1 },
      ],
      bindings,
    );
    expect(result.retryMessages).toEqual([]);
    expect(result.delays).toEqual({});
    expect(result.explicitAcks).toEqual(["sms-1", "pager-1", "send-1", "junk-1"]);
    expect(deadLetters).toEqual([
      { body: noWebhook, reason: 'channel "sms" has no webhookUrl configured' },
      { body: unknownChannel, reason: 'channel "pager" has no webhookUrl configured' },
      { body: noSession, reason: `target ${noSession.targetKey}: session not found` },
      { body: garbage, reason: "unknown message shape" },
    ]);
    expect(await deliveries(noWebhook.sessionKey)).toEqual([]);
  });
});
