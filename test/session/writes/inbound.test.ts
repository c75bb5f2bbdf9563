import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { InboundChannelMessage } from "../../../src/session/api";
import { session, stub, uid } from "../../support";

/** A discord message into a chat of its own, as the channel route hands it to the session object. */
function discordMessage(
  chatType: "direct" | "group" | "channel",
  chat: string,
  fields: { text: string; senderId?: string },
): InboundChannelMessage {
  const deliveryContext = { channel: "discord", to: `${chatType}:${chat}` };
  return {
    init: {
      sessionKey: `agent:main:discord:${chatType}:${chat}`,
      agentId: "main",
      channel: "discord",
      chatType,
      deliveryContext,
    },
    channelMessageId: `m-${crypto.randomUUID()}`,
    text: fields.text,
    senderId: fields.senderId ?? "someone",
    runId: crypto.randomUUID(),
  };
}

/** The session's user messages and runs, read from its own storage. */
const stored = (key: string) =>
  runInDurableObject(stub(key), (_instance, state) => ({
    messages: state.storage.sql
      .exec<{ id: string }>("SELECT id FROM message WHERE role = 'user' ORDER BY seq")
      .toArray()
      .map((row) => row.id),
    runs: state.storage.sql
      .exec<{ run_id: string }>("SELECT run_id FROM run ORDER BY seq")
      .toArray()
      .map((row) => row.run_id),
  }));

// One call per event (issue 29, item 2): the object creates the session, decides the command and the send
// policy, records the message and queues its turn in one transaction; the route only verifies and parses.
describe("acceptInbound: an inbound channel message is one call", () => {
  it("creates the session, records the message and queues its run; a redelivery is the same run", async () => {
    const message = discordMessage("group", `acc${uid()}`, { text: "hello" });
    const key = message.init.sessionKey;
    const first = await session(key).acceptInbound(message);
    expect(first).toEqual({
      ok: true,
      value: { status: "accepted", runId: message.runId, duplicate: false },
    });
    const again = await session(key).acceptInbound({ ...message, runId: crypto.randomUUID() });
    expect(again).toEqual({ ok: true, value: { status: "accepted", runId: message.runId, duplicate: true } });
    const { messages, runs } = await stored(key);
    expect(messages).toEqual([`channel:discord:${message.channelMessageId}`]);
    expect(runs).toEqual([message.runId]);
  });

  it("records a message the send policy blocks, with no run", async () => {
    // The test configuration denies discord's channel chats.
    const message = discordMessage("channel", `blk${uid()}`, { text: "hello" });
    const key = message.init.sessionKey;
    expect(await session(key).acceptInbound(message)).toEqual({ ok: true, value: { status: "blocked" } });
    expect(await stored(key)).toEqual({
      messages: [`channel:discord:${message.channelMessageId}`],
      runs: [],
    });
  });

  it("applies an owner's /send command, and the next message meets the new policy in the same object", async () => {
    const chat = `cmd${uid()}`;
    const stranger = discordMessage("group", chat, { text: "/send off" });
    const key = stranger.init.sessionKey;
    // Not an owner: the text is just a message, and it starts a run.
    expect(await session(key).acceptInbound(stranger)).toMatchObject({
      ok: true,
      value: { status: "accepted" },
    });
    const owner = discordMessage("group", chat, { text: "/send off", senderId: "owner-1" });
    expect(await session(key).acceptInbound(owner)).toEqual({
      ok: true,
      value: { status: "command", sendPolicy: "deny", duplicate: false },
    });
    const later = discordMessage("group", chat, { text: "still there?" });
    expect(await session(key).acceptInbound(later)).toEqual({ ok: true, value: { status: "blocked" } });
    expect((await stored(key)).runs).toEqual([stranger.runId]);
  });
});
