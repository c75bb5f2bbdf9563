import { describe, expect, it } from "vitest";
import { getSession, transcript, waitRun } from "../../support";
import { TEST_BOTS } from "../../support/platforms/identity";
import { inboundState, postTelegram, runReplyTarget, tgId, tgUpdate } from "../../support/platforms/inbound";

const BOT = TEST_BOTS.telegram;

describe("Telegram inbound: verified by the secret token, mapped as SPEC §21 says", () => {
  it("a private message with the channel's secret token starts a run whose reply quotes it", async () => {
    const sender = tgId();
    const update = tgUpdate({
      from: { id: sender, is_bot: false, first_name: "Ada" },
      chat: { id: sender, type: "private" },
    });
    const posted = await postTelegram("tg-in", update);
    expect(posted.status, posted.text).toBe(202);
    const key = `agent:main:tg-in:direct:${sender}`;
    expect(posted.json).toEqual({
      status: "accepted",
      runId: expect.any(String),
      sessionKey: key,
      duplicate: false,
    });
    const runId = String(posted.json.runId);
    expect(await waitRun(runId)).toMatchObject({ status: "ok", reply: "Got it: hello" });
    const messageId = String((update.message as { message_id: number }).message_id);
    expect((await transcript(key))[0]).toMatchObject({
      id: `channel:tg-in:${messageId}`,
      content: "hello",
      provenance: {
        kind: "external_user",
        sourceChannel: "tg-in",
        senderId: String(sender),
        senderName: "Ada",
      },
    });
    // The run's reply target carries the message to quote; the session keeps only the chat.
    expect(await runReplyTarget(key, runId)).toEqual({
      channel: "tg-in",
      to: String(sender),
      replyToMessageId: messageId,
    });
    expect((await getSession(key)).json).toMatchObject({
      deliveryContext: { channel: "tg-in", to: String(sender) },
    });
    expect(JSON.stringify((await getSession(key)).json)).not.toContain("replyToMessageId");
  });

  it("a wrong or missing secret token is 401 and writes nothing", async () => {
    for (const secret of ["not-the-secret", null]) {
      const sender = tgId();
      const update = tgUpdate({ from: { id: sender, is_bot: false }, chat: { id: sender, type: "private" } });
      const posted = await postTelegram("tg-in", update, { secret });
      expect(posted.status).toBe(401);
      expect((await getSession(`agent:main:tg-in:direct:${sender}`)).status).toBe(404);
    }
  });

  it("the channel's own secretTokenEnv replaces the derived key", async () => {
    const sender = tgId();
    const update = () =>
      tgUpdate({ from: { id: sender, is_bot: false }, chat: { id: sender, type: "private" } });
    expect((await postTelegram("tg-cache", update())).status).toBe(202);
    // The derived key is not the channel's secret any more.
    const { channelSecret } = await import("../../support");
    expect(
      (await postTelegram("tg-cache", update(), { secret: await channelSecret("tg-cache") })).status,
    ).toBe(401);
  });

  it("a redelivered update (the same update_id) is one message and one run", async () => {
    const sender = tgId();
    const update = tgUpdate({ from: { id: sender, is_bot: false }, chat: { id: sender, type: "private" } });
    const first = await postTelegram("tg-in", update);
    const again = await postTelegram("tg-in", update);
    expect(again.json).toMatchObject({ status: "accepted", runId: first.json.runId, duplicate: true });
    await waitRun(String(first.json.runId));
    const key = `agent:main:tg-in:direct:${sender}`;
    expect((await transcript(key)).filter((message) => message.role === "user")).toHaveLength(1);
  });

  it("chat types and topics: supergroup forum topic, group, channel post", async () => {
    const group = -tgId();
    const topic = await postTelegram(
      "tg-always",
      tgUpdate({
        chat: { id: group, type: "supergroup", is_forum: true },
        message_thread_id: 99,
        text: "in a topic",
      }),
    );
    expect(topic.json).toMatchObject({
      status: "accepted",
      sessionKey: `agent:main:tg-always:group:${group}:topic:99`,
    });
    const plain = await postTelegram(
      "tg-always",
      tgUpdate({ chat: { id: group, type: "group" }, message_thread_id: 5 }),
    );
    // message_thread_id outside a forum is a reply chain, not a topic.
    expect(plain.json).toMatchObject({ sessionKey: `agent:main:tg-always:group:${group}` });
    const channel = -tgId();
    const post = await postTelegram("tg-always", {
      update_id: tgId(),
      channel_post: {
        message_id: 1,
        date: 0,
        chat: { id: channel, type: "channel", title: "News" },
        sender_chat: { id: channel, title: "News" },
        text: "news",
      },
    });
    expect(post.json).toMatchObject({
      status: "accepted",
      sessionKey: `agent:main:tg-always:channel:${channel}`,
    });
  });

  it("edits, bots' messages and unknown updates are acknowledged 200, recorded as ignored, start nothing", async () => {
    const before = (await inboundState("tg-in"))?.ignoredCount ?? 0;
    const sender = tgId();
    const chat = { id: sender, type: "private" };
    const edit = await postTelegram("tg-in", {
      update_id: tgId(),
      edited_message: { message_id: 1, chat, text: "x" },
    });
    expect(edit.status).toBe(200);
    expect(edit.json).toMatchObject({ status: "ignored", reason: "an edit" });
    const bot = await postTelegram("tg-in", tgUpdate({ from: { id: sender, is_bot: true }, chat }));
    expect(bot.json).toMatchObject({ status: "ignored", reason: "a bot's message" });
    const poll = await postTelegram("tg-in", { update_id: tgId(), poll: { id: "p", question: "?" } });
    expect(poll.status).toBe(200);
    const garbage = await postTelegram("tg-in", "not json at all");
    expect(garbage.status).toBe(200);
    expect((await getSession(`agent:main:tg-in:direct:${sender}`)).status).toBe(404);
    const state = await inboundState("tg-in");
    expect(state?.ignoredCount).toBeGreaterThanOrEqual(before + 4);
    expect(state).toMatchObject({ lastOutcome: expect.any(String), lastInboundAt: expect.any(Number) });
  });

  it("allowFrom drops everyone else: acknowledged, nothing written", async () => {
    const stranger = tgId();
    const dropped = await postTelegram(
      "tg-allow",
      tgUpdate({ from: { id: stranger, is_bot: false }, chat: { id: stranger, type: "private" } }),
    );
    expect(dropped.status).toBe(200);
    expect(dropped.json).toEqual({ status: "dropped" });
    expect((await getSession(`agent:main:tg-allow:direct:${stranger}`)).status).toBe(404);
    const allowed = await postTelegram(
      "tg-allow",
      tgUpdate({
        from: { id: 1001, is_bot: false },
        chat: { id: 1001, type: "private" },
        message_id: tgId(),
      }),
    );
    expect(allowed.json).toMatchObject({ status: "accepted" });
  });
});

describe("Telegram groups: mention, reply or command starts a run; the rest is context", () => {
  const groupMessage = (group: number, fields: Record<string, unknown>) =>
    tgUpdate({
      chat: { id: group, type: "supergroup" },
      from: { id: tgId(), is_bot: false, first_name: "Bo" },
      ...fields,
    });

  it("unaddressed messages are context; a mention entity of the bot starts a run that has them", async () => {
    const group = -tgId();
    const key = `agent:main:tg-in:group:${group}`;
    const chatter = await postTelegram("tg-in", groupMessage(group, { text: "lunch at noon?" }));
    expect(chatter.status).toBe(202);
    expect(chatter.json).toMatchObject({ status: "context", duplicate: false, sessionKey: key });
    const text = `@${BOT.username} where is lunch?`;
    const asked = await postTelegram(
      "tg-in",
      groupMessage(group, {
        text,
        entities: [{ type: "mention", offset: 0, length: BOT.username.length + 1 }],
      }),
    );
    expect(asked.json).toMatchObject({ status: "accepted", sessionKey: key });
    expect(await waitRun(String(asked.json.runId))).toMatchObject({ reply: "Got it: where is lunch?" });
    const messages = await transcript(key);
    expect(messages[0]).toMatchObject({
      content: "lunch at noon?",
      provenance: { groupContext: true, senderName: "Bo" },
    });
    expect(messages[0]).not.toHaveProperty("runId");
    expect(messages[1]).toMatchObject({ content: "where is lunch?", runId: asked.json.runId });
  });

  it("a reply to the bot's message and a command for it start runs; a command for another bot does not", async () => {
    const group = -tgId();
    const reply = await postTelegram(
      "tg-in",
      groupMessage(group, {
        text: "thanks",
        reply_to_message: { message_id: 5, from: { id: BOT.id, is_bot: true } },
      }),
    );
    expect(reply.json).toMatchObject({ status: "accepted" });
    const command = `/ask@${BOT.username} hi`;
    const ours = await postTelegram(
      "tg-in",
      groupMessage(group, {
        text: command,
        entities: [{ type: "bot_command", offset: 0, length: command.indexOf(" ") }],
      }),
    );
    expect(ours.json).toMatchObject({ status: "accepted" });
    expect(await waitRun(String(ours.json.runId))).toMatchObject({ reply: "Got it: /ask hi" });
    const other = "/ask@other_bot hi";
    const theirs = await postTelegram(
      "tg-in",
      groupMessage(group, { text: other, entities: [{ type: "bot_command", offset: 0, length: 14 }] }),
    );
    expect(theirs.json).toMatchObject({ status: "context" });
  });

  it('groupActivation "always" answers every group message', async () => {
    const posted = await postTelegram("tg-always", groupMessage(-tgId(), { text: "anyone?" }));
    expect(posted.json).toMatchObject({ status: "accepted" });
  });
});
