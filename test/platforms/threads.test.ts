import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SLACK_PLACEHOLDER } from "../../src/platforms/slack/live";
import { inbound, postInbound, uid, waitRun } from "../support";
import type { RecordedRequest } from "../support/fake-services";
import {
  postDiscord,
  postSlack,
  postTelegram,
  slackEvent,
  tgId,
  tgUpdate,
} from "../support/platforms/inbound";
import {
  platformCalls,
  platformCallsAfter,
  platformCallsArrived,
  platformScript,
} from "../support/platforms/outbound";
import { describeSession, stub } from "../support/sessions";
import { callTool, tool } from "../support/tools";

/**
 * `sessions_spawn { thread: true }` on the chat platforms (SPEC §21 threads for sub-agents), end to end
 * through the Worker and the platforms' stand-ins (test/support/platforms/outbound-stand-in.ts): the
 * thread is opened in the requester's chat, the child's key is the thread's, its reply and its
 * requester's update on its completion are posted into the thread, and a signed message written in the
 * thread reaches the child. The child's live calls (SPEC §21 Live: typing, Slack's assistant status) are
 * in the thread too; the tests wait on the messages they name and check every other call is there.
 * Channels tg-bot, slack-bot, discord-bot (test-config.ts; `streaming: "off"`); their agent is main,
 * whose scripted echo answers "Got it: …".
 */

type Call = RecordedRequest<Record<string, unknown>>;
/** A call's API method or last path segment (`sendMessage`, `chat.postMessage`, `typing`). */
const methodOf = (call: Call) => call.path.split("/").pop() ?? "";
const isMethod =
  (...methods: string[]) =>
  (call: Call) =>
    methods.includes(methodOf(call));
/** A Slack message posted into thread `ts`. */
const postedInThread = (ts: string) => (call: Call) =>
  methodOf(call) === "chat.postMessage" && call.json.thread_ts === ts;

type Spawned = { status: string; childSessionKey: string; runId: string; error?: string };

/** The task's spawn from `requester` with thread: true, expected accepted. */
async function spawnInThread(
  requester: string,
  task: string,
  more: Record<string, unknown> = {},
): Promise<Spawned> {
  const spawned = await tool("sessions_spawn", requester, { task, thread: true, ...more });
  expect(spawned, JSON.stringify(spawned)).toMatchObject({ status: "accepted", mode: "session" });
  return spawned as unknown as Spawned;
}

/** Each run of a session, with whether its end owed the requester a completion (in run order). */
const completionsOwed = (key: string) =>
  runInDurableObject(stub(key), (_instance, state) =>
    state.storage.sql
      .exec<{ run_id: string; completion: string | null }>("SELECT run_id, completion FROM run ORDER BY seq")
      .toArray()
      .map((row) => [row.run_id, row.completion]),
  );

/** A Telegram forum (a supergroup with topics) and a command in it by Ada, optionally in a topic. */
const forumCommand = (chat: number, text: string, topic?: number) =>
  tgUpdate({
    chat: { id: chat, type: "supergroup", is_forum: true, title: "Forum" },
    text,
    entities: [{ type: "bot_command", offset: 0, length: text.indexOf(" ") }],
    ...(topic !== undefined ? { message_thread_id: topic, is_topic_message: true } : {}),
  });

describe("sessions_spawn thread: true on a platform channel", () => {
  it("Telegram: a forum topic is created; the child is its `:topic:` session both ways", async () => {
    const chat = -(1_000_000_000_000 + tgId());
    const parent = await postTelegram("tg-bot", forumCommand(chat, "/ask start"));
    expect(parent.status, parent.text).toBe(202);
    await waitRun(String(parent.json.runId));
    const parentKey = String(parent.json.sessionKey);
    // Its answer is out first: the chat's calls after it are the spawn's.
    const before = (await platformCallsAfter(String(chat), 0, 1, isMethod("sendMessage"))).length;

    const spawned = await spawnInThread(parentKey, "dig into the logs");
    const topic = Number(spawned.childSessionKey.split(":topic:")[1]);
    expect(spawned.childSessionKey).toBe(`${parentKey}:topic:${topic}`);
    const child = await describeSession(spawned.childSessionKey);
    expect(child).toMatchObject({ spawnedBy: parentKey, spawnDepth: 1 });

    // The child's reply, then its requester's update on the completion, both in the topic; so is the
    // typing shown while they were written.
    await waitRun(spawned.runId);
    const calls = await platformCallsAfter(String(chat), before, 2, isMethod("sendMessage"), [
      spawned.childSessionKey,
      parentKey,
    ]);
    expect(methodOf(calls[0] as Call)).toBe("createForumTopic");
    expect(calls[0]?.json).toMatchObject({ chat_id: String(chat), name: "dig into the logs" });
    for (const call of calls.slice(1)) {
      expect(methodOf(call)).toMatch(/^(sendMessage|sendChatAction)$/);
      expect(call.json).toMatchObject({ chat_id: String(chat), message_thread_id: topic });
    }
    expect(calls.filter(isMethod("sendChatAction")).length).toBeGreaterThan(0);
    const posted = calls.filter(isMethod("sendMessage"));
    expect(posted.map((call) => String(call.json.text))).toEqual(
      expect.arrayContaining([expect.stringContaining("dig into the logs")]),
    );

    // Someone writes in the topic: the child answers it there, and its requester is not told again.
    const later = await postTelegram("tg-bot", forumCommand(chat, "/ask and the rest?", topic));
    expect(later.status, later.text).toBe(202);
    expect(later.json.sessionKey).toBe(spawned.childSessionKey);
    expect(await waitRun(String(later.json.runId))).toMatchObject({ reply: "Got it: /ask and the rest?" });
    const more = await platformCallsAfter(String(chat), before + calls.length, 1, isMethod("sendMessage"), [
      spawned.childSessionKey,
    ]);
    for (const call of more) expect(call.json).toMatchObject({ message_thread_id: topic });
    const [answer] = more.filter(isMethod("sendMessage"));
    expect(answer?.json).toMatchObject({ message_thread_id: topic, text: "Got it: /ask and the rest?" });
    expect(await describeSession(spawned.childSessionKey)).toMatchObject({ spawnedBy: parentKey });
    expect(await completionsOwed(spawned.childSessionKey)).toEqual([
      // Owed, or delivered by now.
      [spawned.runId, expect.stringMatching(/^(owed|delivered)$/)],
      [String(later.json.runId), "none"],
    ]);
  });

  it("Slack: the bot posts about the task and the child lives in that message's thread", async () => {
    const dm = `D${uid().toUpperCase()}`;
    const user = `U${uid().toUpperCase()}`;
    const parent = await postSlack(
      "slack-bot",
      slackEvent({ channel: dm, channel_type: "im", user, text: "hi" }),
    );
    expect(parent.status, parent.text).toBe(202);
    await waitRun(String(parent.json.runId));
    const parentKey = String(parent.json.sessionKey);
    // Its answer (its placeholder completed) is out first: the DM's calls after it are the spawn's.
    const before = (await platformCallsAfter(dm, 0, 1, (call) => call.json.text === "Got it: hi")).length;

    const spawned = await spawnInThread(parentKey, "summarise the doc");
    const ts = spawned.childSessionKey.split(":thread:")[1] ?? "";
    expect(spawned.childSessionKey).toBe(`${parentKey}:thread:${ts}`);

    // The child's reply and the update posted in the thread; the status shown meanwhile is the thread's.
    await waitRun(spawned.runId);
    const [intro, ...inThread] = await platformCallsAfter(dm, before, 2, postedInThread(ts), [
      spawned.childSessionKey,
      parentKey,
    ]);
    expect(methodOf(intro as Call)).toBe("chat.postMessage");
    expect(intro?.json).toMatchObject({ channel: dm, text: "Sub-agent task: summarise the doc" });
    expect(intro?.json.thread_ts).toBeUndefined();
    for (const call of inThread) {
      expect(methodOf(call)).toMatch(/^(chat\.postMessage|assistant\.threads\.setStatus)$/);
      expect(call.json).toMatchObject({ thread_ts: ts });
    }
    const status = inThread.filter(isMethod("assistant.threads.setStatus"));
    expect(status.length).toBeGreaterThan(0);
    for (const call of status) expect(call.json).toMatchObject({ channel_id: dm });
    for (const call of inThread.filter(isMethod("chat.postMessage")))
      expect(call.json).toMatchObject({ channel: dm });

    const later = await postSlack(
      "slack-bot",
      slackEvent({ channel: dm, channel_type: "im", user, text: "one more", thread_ts: ts }),
    );
    expect(later.status, later.text).toBe(202);
    expect(later.json.sessionKey).toBe(spawned.childSessionKey);
    await waitRun(String(later.json.runId));
    const more = await platformCallsAfter(dm, before + 1 + inThread.length, 1, postedInThread(ts), [
      spawned.childSessionKey,
    ]);
    for (const call of more) expect(call.json).toMatchObject({ thread_ts: ts });
    const [answer] = more.filter(isMethod("chat.postMessage"));
    expect(answer?.json).toMatchObject({ thread_ts: ts, text: "Got it: one more" });
  });

  it("Discord: a thread is started from the bot's message; replies go to the thread's channel", async () => {
    const channel = `${Date.now()}${tgId()}`;
    const ask = (text: string, where: Record<string, unknown>) => ({
      id: `${Date.now()}${tgId()}`,
      application_id: "112233445566778899",
      type: 2,
      token: `interaction-token-${uid()}`,
      version: 1,
      guild_id: "700",
      member: { user: { id: "555", username: "ada" } },
      data: { id: "cmd-1", name: "ask", type: 1, options: [{ name: "text", type: 3, value: text }] },
      ...where,
    });
    const parent = await postDiscord(
      "discord-bot",
      ask("start", { channel_id: channel, channel: { id: channel, type: 0 } }),
    );
    expect(parent.status, parent.text).toBe(200);
    const parentKey = `agent:main:discord-bot:channel:${channel}`;
    // A thread's child is kept for what people write there: mode session, whatever cleanup says.
    const spawned = await spawnInThread(parentKey, "triage the bug", { cleanup: "delete" });
    const [intro, start] = await platformCallsArrived(channel, 2);
    expect(intro?.path).toBe(`/discord/channels/${channel}/messages`);
    const messageId = spawned.childSessionKey.split(":thread:")[1] ?? "";
    expect(start?.path).toBe(`/discord/channels/${channel}/messages/${messageId}/threads`);
    expect(start?.json).toMatchObject({ name: "triage the bug" });
    expect(spawned.childSessionKey).toBe(`${parentKey}:thread:${messageId}`);

    // The thread is a channel of its own: the child's reply and the update are posted to it, and the
    // typing shown meanwhile is its own; the parent channel has the intro and the thread's start only.
    await waitRun(spawned.runId);
    const inThread = await platformCallsAfter(messageId, 0, 2, isMethod("messages"), [
      spawned.childSessionKey,
      parentKey,
    ]);
    for (const call of inThread)
      expect(call.path).toMatch(new RegExp(`^/discord/channels/${messageId}/(messages|typing)$`));
    expect(inThread.filter(isMethod("typing")).length).toBeGreaterThan(0);
    expect((await platformCalls(channel)).map(methodOf)).toEqual(["messages", "threads"]);

    const fromThread = ask("and then?", {
      channel_id: messageId,
      channel: { id: messageId, type: 11, parent_id: channel },
    });
    const later = await postDiscord("discord-bot", fromThread);
    expect(later.status, later.text).toBe(200);
    const [answer] = await platformCallsArrived(fromThread.token, 1);
    expect(answer?.json).toMatchObject({ content: "Got it: and then?" });
    expect(await describeSession(spawned.childSessionKey)).toMatchObject({ spawnedBy: parentKey });
  });
});

describe("sessions_spawn thread: true repeated", () => {
  it("the same idempotencyKey finds its thread's child again, opening no second thread", async () => {
    const dm = `D${uid().toUpperCase()}`;
    const user = `U${uid().toUpperCase()}`;
    const parent = await postSlack(
      "slack-bot",
      slackEvent({ channel: dm, channel_type: "im", user, text: "hi" }),
    );
    expect(parent.status, parent.text).toBe(202);
    await waitRun(String(parent.json.runId));
    await platformCallsAfter(dm, 0, 1, (call) => call.json.text === "Got it: hi");
    const parentKey = String(parent.json.sessionKey);
    const idempotencyKey = `k-${uid()}`;
    const first = await spawnInThread(parentKey, "once only", { idempotencyKey });
    const ts = first.childSessionKey.split(":thread:")[1] ?? "";
    // Its reply and the update are out: its run is in the run index a repeat looks in.
    await waitRun(first.runId);
    await platformCallsAfter(dm, 0, 2, postedInThread(ts), [first.childSessionKey, parentKey]);
    const again = await spawnInThread(parentKey, "once only", { idempotencyKey });
    expect(again).toMatchObject({ childSessionKey: first.childSessionKey, runId: first.runId });
    // Outside the thread: the parent's reply (its placeholder, completed by chat.update) and one intro.
    const topLevel = (await platformCalls(dm)).filter(
      (call) => methodOf(call) === "chat.postMessage" && call.json.thread_ts === undefined,
    );
    expect(topLevel.map((call) => call.json.text)).toEqual([SLACK_PLACEHOLDER, "Sub-agent task: once only"]);
  });
});

describe("sessions_spawn thread: true refused, with nothing spawned", () => {
  const children = async (key: string) =>
    (await tool("subagents", key, { action: "list" })) as { active: unknown[]; recent: unknown[] };

  it("Telegram: a chat that is not a forum", async () => {
    const user = tgId();
    const parent = await postTelegram(
      "tg-bot",
      tgUpdate({ chat: { id: user, type: "private" }, from: { id: user, is_bot: false, first_name: "Ada" } }),
    );
    expect(parent.status, parent.text).toBe(202);
    const parentKey = String(parent.json.sessionKey);
    await waitRun(String(parent.json.runId));
    await platformCallsArrived(String(user), 1);
    await platformScript(String(user), ["not_forum"]);
    const refused = await tool("sessions_spawn", parentKey, { task: "x", thread: true });
    expect(refused).toMatchObject({ status: "error" });
    expect(String((refused as { error?: string }).error)).toMatch(
      /^thread: needs a forum chat .*on Telegram.*not a forum/,
    );
    expect(await children(parentKey)).toMatchObject({ active: [], recent: [] });
  });

  it("Discord: the platform refuses the thread (403)", async () => {
    const channel = `${Date.now()}${tgId()}`;
    const parentKey = `agent:main:discord-bot:channel:${channel}`;
    await platformScript(channel, ["ok", "blocked"]);
    const refused = await tool("sessions_spawn", parentKey, { task: "x", thread: true });
    expect(refused).toMatchObject({ status: "error" });
    expect(String((refused as { error?: string }).error)).toMatch(
      /^thread: Discord POST .*Missing Access \(HTTP 403\)/,
    );
    expect(await children(parentKey)).toMatchObject({ active: [], recent: [] });
  });

  it("a webhook channel, or no channel at all: an error naming thread", async () => {
    const posted = await postInbound(
      "telegram",
      inbound({ chatId: `c-${uid()}`, senderId: `s${uid()}`, messageId: `m-${uid()}` }),
    );
    expect(posted.status, posted.text).toBe(202);
    const onWebhook = String((posted.json as { sessionKey: string }).sessionKey);
    expect(await tool("sessions_spawn", onWebhook, { task: "x", thread: true })).toMatchObject({
      status: "error",
      error: expect.stringMatching(
        /^thread: true needs a chat platform channel .*"telegram" is a webhook channel/,
      ),
    });
    const response = await callTool("sessions_spawn", `agent:main:plain-${uid()}`, {
      task: "x",
      thread: true,
    });
    expect(response.json).toMatchObject({
      status: "error",
      error: expect.stringMatching(/^thread: true needs a session in a Telegram, Slack or Discord chat/),
    });
  });
});
