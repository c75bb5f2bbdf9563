import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SUPERSEDED_NOTES } from "../../src/session/writes/superseded";
import { drive, driveUntil, runAlarms, runStarted, storedRuns, stub, uid, waitRun } from "../support";
import {
  postDiscord,
  postSlack,
  postTelegram,
  slackEvent,
  tgId,
  tgUpdate,
} from "../support/platforms/inbound";
import { ledgerRowOnce, platformCalls, platformCallsArrived } from "../support/platforms/outbound";

/**
 * Busy sessions on the chat platforms (SPEC §21), end to end: signed updates through the channel's route,
 * runs in the session's object, replies at the platform's stand-in. The channels (test-config.ts
 * busyChannels): tg-bot (queue, the default), tg-steer, tg-interrupt, tg-collect (2 s), slack-interrupt,
 * discord-collect (2 s); `steerable` holds a run open until it is steered ("wait for steering"). Live is
 * on (SPEC §21 Live): tg-bot posts its final reply only; the others stream by editing a draft (the
 * default), so a chat also sees typing, Slack's "…" placeholder, drafts, edits and retractions. The tests
 * read what the chat ends up showing (its messages, by method), not the count of every call.
 */
type Posted = { status: string; runId: string; sessionKey: string };

/** A private Telegram message from `user` on `channel`: its answer and its message id. */
async function tell(channel: string, user: number, text: string) {
  const update = tgUpdate({
    chat: { id: user, type: "private" },
    from: { id: user, is_bot: false, first_name: "Ada" },
    text,
  });
  const posted = await postTelegram(channel, update);
  expect(posted.status, posted.text).toBe(202);
  return { ...(posted.json as Posted), messageId: (update.message as { message_id: number }).message_id };
}

/** The run's start after the collect debounce, as the object keeps it, and its alarm. */
const collecting = (key: string) =>
  runInDurableObject(stub(key), async (_instance, state) => ({
    notBefore: state.storage.sql
      .exec<{ not_before: number | null }>("SELECT not_before FROM run")
      .toArray()
      .map((row) => row.not_before),
    alarm: await state.storage.getAlarm(),
  }));

/** The debounce has passed: the collecting run's start is now, and the object's alarm runs it. */
async function debouncePassed(key: string) {
  await runInDurableObject(stub(key), (_instance, state) => {
    state.storage.sql.exec("UPDATE run SET not_before = ? WHERE status = 'queued'", Date.now());
  });
  await runAlarms([key]);
}

type Call = { path: string; json: Record<string, unknown> };
const methodOf = (call: Call) => call.path.split("/").pop() ?? "";
/** A call that posts a new message; one that rewrites one; one that deletes one (Telegram, Slack). */
const POSTS = ["sendMessage", "chat.postMessage"];
const EDITS = ["editMessageText", "chat.update"];
const DELETES = ["deleteMessage", "chat.delete"];
const textOf = (call: Call | undefined) => call?.json.text;

/**
 * What `key`'s chat shows once `channel`'s reply in session `sessionKey` is delivered and nothing is left
 * due: the messages posted, how many were deleted, and the text last written (a post or an edit).
 */
async function chatShows(sessionKey: string, channel: string, key: string) {
  await ledgerRowOnce(
    sessionKey,
    channel,
    (row) => row.status === "delivered",
    `${channel}'s reply delivered`,
  );
  await drive([sessionKey]);
  const calls = await platformCalls(key);
  const posts = calls.filter((call) => POSTS.includes(methodOf(call)));
  return {
    posts,
    deleted: calls.filter((call) => DELETES.includes(methodOf(call))).length,
    last: textOf(calls.filter((call) => [...POSTS, ...EDITS].includes(methodOf(call))).at(-1)),
  };
}

/** No more calls for `key` than `count` once every session in `keys` has nothing left due. */
async function noMoreCalls(keys: string[], key: string, count: number) {
  await drive(keys);
  expect(await platformCalls(key)).toHaveLength(count);
}

describe("busy sessions on the chat platforms", () => {
  it("Telegram queue: each message its own reply, in the messages' order, each quoting its own", async () => {
    const user = tgId();
    const one = await tell("tg-bot", user, "one");
    const two = await tell("tg-bot", user, "two");
    expect(two.runId).not.toBe(one.runId);
    // Typing comes and goes between them; the messages are the `sendMessage`s.
    const calls = await driveUntil(
      [one.sessionKey],
      async () => {
        const posts = (await platformCalls(String(user))).filter((call) => methodOf(call) === "sendMessage");
        return posts.length >= 2 ? posts : undefined;
      },
      "both replies",
    );
    expect(calls.map(textOf)).toEqual(["Got it: one", "Got it: two"]);
    expect(calls.map((call) => (call.json.reply_parameters as { message_id: number }).message_id)).toEqual([
      one.messageId,
      two.messageId,
    ]);
  });

  it("Telegram steer: a message reaches the run in flight, whose one reply answers it", async () => {
    const user = tgId();
    const first = await tell("tg-steer", user, "wait for steering");
    await runStarted(first.runId);
    const second = await tell("tg-steer", user, "change of plan");
    expect(second.runId).toBe(first.runId);
    expect(await waitRun(first.runId)).toMatchObject({ status: "ok", reply: "steered: change of plan" });
    // One message (its draft, edited into the reply), quoting the first.
    const shows = await chatShows(first.sessionKey, "tg-steer", String(user));
    expect(shows.posts).toHaveLength(1);
    expect(shows.posts[0]?.json).toMatchObject({ reply_parameters: { message_id: first.messageId } });
    expect(shows).toMatchObject({ deleted: 0, last: "steered: change of plan" });
  });

  it("Telegram interrupt: the run in flight dies unposted; one new run answers, quoting the newest", async () => {
    const user = tgId();
    const first = await tell("tg-interrupt", user, "wait for steering");
    await runStarted(first.runId);
    const second = await tell("tg-interrupt", user, "never mind");
    expect(second.runId).not.toBe(first.runId);
    expect(await waitRun(second.runId)).toMatchObject({ status: "ok", reply: "steerable got: never mind" });
    expect(await waitRun(first.runId)).toMatchObject({
      runStatus: "killed",
      error: "run interrupted by a newer message",
    });
    // The killed run showed typing only; the one message is the new run's, quoting the newest.
    const shows = await chatShows(first.sessionKey, "tg-interrupt", String(user));
    expect(shows.posts).toHaveLength(1);
    expect(shows.posts[0]?.json).toMatchObject({ reply_parameters: { message_id: second.messageId } });
    expect(shows).toMatchObject({ deleted: 0, last: "steerable got: never mind" });
  });

  it("Telegram collect: messages within the debounce wait for it (the object's alarm), then one reply answers the newest", async () => {
    const user = tgId();
    const sent = [];
    for (const text of ["one", "two", "three"]) sent.push(await tell("tg-collect", user, text));
    expect(new Set(sent.map((posted) => posted.runId)).size).toBe(1);
    const key = sent[0]?.sessionKey ?? "";
    // The run starts 2 s after the newest message; the object's alarm until then starts nothing.
    const waiting = await collecting(key);
    expect(waiting.notBefore).toHaveLength(1);
    expect(waiting.notBefore[0]).toBeGreaterThan(Date.now() + 1000);
    expect(waiting.alarm).not.toBeNull();
    await runAlarms([key], 2);
    expect((await collecting(key)).notBefore).toEqual(waiting.notBefore);
    expect(await platformCalls(String(user))).toHaveLength(0);
    await debouncePassed(key);
    const shows = await chatShows(key, "tg-collect", String(user));
    expect(shows.posts).toHaveLength(1);
    expect(shows.posts[0]?.json).toMatchObject({ reply_parameters: { message_id: sent[2]?.messageId } });
    expect(shows).toMatchObject({ deleted: 0, last: "Got it: three" });
  });

  it("Slack interrupt: the killed run's placeholder is deleted; the new run's reply goes to the conversation", async () => {
    const dm = `D${uid().toUpperCase()}`;
    const user = `U${uid().toUpperCase()}`;
    const post = async (text: string) => {
      const posted = await postSlack(
        "slack-interrupt",
        slackEvent({ channel: dm, channel_type: "im", user, text }),
      );
      expect(posted.status, posted.text).toBe(202);
      return posted.json as Posted;
    };
    const first = await post("wait for steering");
    await runStarted(first.runId);
    // Outside an assistant thread the working run shows a "…" placeholder: its draft.
    const [placeholder] = await platformCallsArrived(dm, 1);
    expect(placeholder && methodOf(placeholder)).toBe("chat.postMessage");
    const second = await post("never mind");
    expect(await waitRun(second.runId)).toMatchObject({ status: "ok", reply: "steerable got: never mind" });
    const shows = await chatShows(first.sessionKey, "slack-interrupt", dm);
    // Two posted (each run's placeholder), the killed run's deleted: one message, the new run's reply.
    expect(shows.posts).toHaveLength(2);
    expect(shows).toMatchObject({ deleted: 1, last: "steerable got: never mind" });
    const deleted = (await platformCalls(dm)).find((call) => methodOf(call) === "chat.delete");
    expect(deleted?.json).toMatchObject({ channel: dm });
  });

  it("Discord collect: the reply completes the newest interaction; the older ones are answered too", async () => {
    const channel = `${Date.now()}${tgId()}`;
    const tokens = [`collect-a-${uid()}`, `collect-b-${uid()}`];
    for (const [index, token] of tokens.entries())
      await ask("discord-collect", channel, token, `part ${index + 1}`);
    // A guild channel's messages share its session.
    const sessionKey = `agent:main:discord-collect:channel:${channel}`;
    await debouncePassed(sessionKey);
    const [newest] = await platformCallsArrived(tokens[1] ?? "", 1);
    expect(newest?.path).toBe(`/discord/webhooks/112233445566778899/${tokens[1]}/messages/@original`);
    expect(newest?.json).toMatchObject({ content: "Got it: part 2" });
    const [older] = await platformCallsArrived(tokens[0] ?? "", 1);
    expect(older?.path).toBe(`/discord/webhooks/112233445566778899/${tokens[0]}/messages/@original`);
    // Its deferred "thinking…" completed with where the answer is, never left to fail.
    expect(older?.json).toEqual({ content: SUPERSEDED_NOTES.later, allowed_mentions: expect.anything() });
  });
});

/** A signed `/ask text` interaction in a guild channel, answered deferred (type 5) as Discord wants. */
async function ask(channelName: string, channel: string, token: string, text: string) {
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
    data: { id: "cmd-1", name: "ask", type: 1, options: [{ name: "text", type: 3, value: text }] },
  };
  const deferred = await postDiscord(channelName, interaction);
  expect(deferred.json).toEqual({ type: 5 });
}

describe("busy sessions on Discord: every interaction gets an answer", () => {
  /** The run the session has in flight, once it has started. */
  const inFlight = (key: string) =>
    driveUntil(
      [],
      async () => (await storedRuns(key)).find((run) => run.status === "running"),
      `a run of ${key} to start`,
    );
  const atOriginal = (token: string) => `/discord/webhooks/112233445566778899/${token}/messages/@original`;

  it("steer: the steered interaction is told the answer is above; the run's reply completes the first", async () => {
    const channel = `${Date.now()}${tgId()}`;
    const [first, second] = [`steer-a-${uid()}`, `steer-b-${uid()}`];
    const sessionKey = `agent:steerable:discord-steer:channel:${channel}`;
    await ask("discord-steer", channel, first, "wait for steering");
    const run = await inFlight(sessionKey);
    await ask("discord-steer", channel, second, "change of plan");
    const [note] = await platformCallsArrived(second, 1);
    expect(note?.path).toBe(atOriginal(second));
    expect(note?.json).toMatchObject({ content: SUPERSEDED_NOTES.earlier });
    expect(await waitRun(run.runId)).toMatchObject({ reply: "steered: change of plan" });
    const [reply] = await platformCallsArrived(first, 1);
    expect(reply?.json).toMatchObject({ content: "steered: change of plan" });
  });

  it("interrupt: the killed run's interaction is told the answer is below; the new run's reply completes the newest", async () => {
    const channel = `${Date.now()}${tgId()}`;
    const [first, second] = [`interrupt-a-${uid()}`, `interrupt-b-${uid()}`];
    const sessionKey = `agent:steerable:discord-interrupt:channel:${channel}`;
    await ask("discord-interrupt", channel, first, "wait for steering");
    await inFlight(sessionKey);
    await ask("discord-interrupt", channel, second, "never mind");
    const [reply] = await platformCallsArrived(second, 1);
    expect(reply?.path).toBe(atOriginal(second));
    expect(reply?.json).toMatchObject({ content: "steerable got: never mind" });
    const [note] = await platformCallsArrived(first, 1);
    expect(note?.json).toMatchObject({ content: SUPERSEDED_NOTES.later });
    await noMoreCalls([sessionKey], first, 1);
  });
});
