import { describe, expect, it } from "vitest";
import { uid, waitRun } from "../support";
import {
  postDiscord,
  postSlack,
  postTelegram,
  slackEvent,
  tgId,
  tgUpdate,
} from "../support/platforms/inbound";
import { platformCallsArrived } from "../support/platforms/outbound";

/**
 * A chat platform end to end through the real Worker (SPEC §21): a signed inbound update on the channel,
 * the run (main's scripted echo), and its reply handed by the session's outbox to the Queue and delivered
 * to the platform's stand-in (test/support/platforms/outbound-stand-in.ts) — answering the message it came
 * from. Channels tg-bot, slack-bot, discord-bot (test-config.ts); a direct chat asks no identity, so the
 * outbound root alone serves them.
 */
describe("chat platforms end to end: signed update → run → reply at the platform", () => {
  it("Telegram: a private message is answered with sendMessage to the chat, quoting it", async () => {
    const user = tgId();
    const update = tgUpdate({
      chat: { id: user, type: "private" },
      from: { id: user, is_bot: false, first_name: "Ada" },
      text: "hello bot",
    });
    const messageId = (update.message as { message_id: number }).message_id;
    const posted = await postTelegram("tg-bot", update);
    expect(posted.status, posted.text).toBe(202);
    expect(await waitRun(String(posted.json.runId))).toMatchObject({ reply: "Got it: hello bot" });
    // Typing while the run worked (SPEC §21 Live), then the reply (tg-bot: `streaming: "off"`).
    const [typing, call] = await platformCallsArrived(String(user), 2);
    expect(typing?.path).toMatch(/^\/telegram\/bot[^/]+\/sendChatAction$/);
    expect(call?.path).toMatch(/^\/telegram\/bot[^/]+\/sendMessage$/);
    expect(call?.json).toMatchObject({
      chat_id: String(user),
      text: "Got it: hello bot",
      reply_parameters: { message_id: messageId },
    });
  });

  it("Slack: an im message in a thread is answered with chat.postMessage in that thread", async () => {
    const dm = `D${uid().toUpperCase()}`;
    const threadTs = "1700000000.000100";
    const envelope = slackEvent({
      channel: dm,
      channel_type: "im",
      user: `U${uid().toUpperCase()}`,
      text: "hi there",
      thread_ts: threadTs,
    });
    const posted = await postSlack("slack-bot", envelope);
    expect(posted.status, posted.text).toBe(202);
    expect(await waitRun(String(posted.json.runId))).toMatchObject({ reply: "Got it: hi there" });
    // The assistant status while the run worked (SPEC §21 Live), then the reply.
    const [status, call] = await platformCallsArrived(dm, 2);
    expect(status?.path).toBe("/slack/assistant.threads.setStatus");
    expect(call?.path).toBe("/slack/chat.postMessage");
    expect(call?.json).toMatchObject({ channel: dm, thread_ts: threadTs, text: "Got it: hi there" });
  });

  it("Slack: an im message outside a thread is answered in the conversation, completing its placeholder", async () => {
    const dm = `D${uid().toUpperCase()}`;
    const envelope = slackEvent({
      channel: dm,
      channel_type: "im",
      user: `U${uid().toUpperCase()}`,
      text: "plain",
    });
    const posted = await postSlack("slack-bot", envelope);
    expect(posted.status, posted.text).toBe(202);
    // No assistant thread: a placeholder while the run worked (SPEC §21 Live), which the reply completes.
    const [placeholder, call] = await platformCallsArrived(dm, 2);
    expect(placeholder?.path).toBe("/slack/chat.postMessage");
    expect(placeholder?.json).toMatchObject({ channel: dm, text: "…" });
    expect(placeholder?.json.thread_ts).toBeUndefined();
    expect(call?.path, JSON.stringify([placeholder, call])).toBe("/slack/chat.update");
    expect(call?.json).toMatchObject({ channel: dm, text: "Got it: plain" });
  });

  it("Discord: /ask text: is deferred, and its reply completes the interaction's @original", async () => {
    const channel = `${Date.now()}${tgId()}`;
    const token = `interaction-token-${uid()}`;
    const interaction = {
      id: `${Date.now()}${tgId()}`,
      application_id: "112233445566778899",
      type: 2,
      token,
      version: 1,
      guild_id: "700",
      channel_id: channel,
      channel: { id: channel, type: 0 },
      member: { user: { id: "555", username: "ada" } },
      data: { id: "cmd-1", name: "ask", type: 1, options: [{ name: "text", type: 3, value: "what now" }] },
    };
    const deferred = await postDiscord("discord-bot", interaction);
    expect(deferred.status, deferred.text).toBe(200);
    expect(deferred.json).toEqual({ type: 5 });
    const [call] = await platformCallsArrived(token, 1);
    expect(call?.method).toBe("PATCH");
    expect(call?.path).toBe(`/discord/webhooks/112233445566778899/${token}/messages/@original`);
    expect(call?.json).toMatchObject({ content: "Got it: what now" });
  });
});
