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
import {
  ledgerRowOnce,
  platformCalls,
  platformCallsArrived,
  platformScript,
} from "../support/platforms/outbound";

/**
 * Live replies end to end (SPEC §21 Live): a signed update on a channel whose agent writes its reply over
 * seconds (model `drip/600`: its pieces 600 ms apart), the chat shown that the run works, and with
 * `streaming: "edit"` (the default) the reply written into one message as it comes, which ends as exactly
 * the final reply through the delivery ledger. Channels tg-live, tg-live-off, tg-live-interrupt,
 * slack-live, discord-live (test/support/test-config.ts), against the platforms' stand-ins.
 */

/** What the model is told, which it echoes: words enough for its three pieces to end mid-sentence. */
const QUESTION = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda";

const methodOf = (path: string) => path.split("/").pop() ?? "";

/** A private Telegram chat's message on `channel`; its chat id and run id once accepted. */
async function telegramTurn(channel: string, text = QUESTION) {
  const user = tgId();
  const update = tgUpdate({
    chat: { id: user, type: "private" },
    from: { id: user, is_bot: false, first_name: "Ada" },
    text,
  });
  const posted = await postTelegram(channel, update);
  expect(posted.status, posted.text).toBe(202);
  return { chat: String(user), runId: String(posted.json.runId), sessionKey: String(posted.json.sessionKey) };
}

describe("live replies: typing while a run works, the reply shown as it is written", () => {
  it("Telegram edit: typing first, a draft edited as the reply comes, the last edit exactly the reply", async () => {
    const { chat, runId, sessionKey } = await telegramTurn("tg-live");
    expect(await waitRun(runId)).toMatchObject({ status: "ok", reply: QUESTION });
    // The final reply is an edit of the draft, delivered through the ledger.
    await ledgerRowOnce(sessionKey, "tg-live", (row) => row.status === "delivered", "the reply delivered");
    const calls = await platformCalls(chat);
    const methods = calls.map((call) => methodOf(call.path));
    expect(methods[0]).toBe("sendChatAction");
    expect(calls[0]?.json).toMatchObject({ chat_id: chat, action: "typing" });
    // One message: posted once (the first draft), edited after.
    expect(methods.filter((method) => method === "sendMessage")).toHaveLength(1);
    const edits = calls.filter((call) => methodOf(call.path) === "editMessageText");
    expect(edits.length).toBeGreaterThanOrEqual(2);
    const draft = calls.find((call) => methodOf(call.path) === "sendMessage");
    expect(QUESTION.startsWith(String(draft?.json.text))).toBe(true);
    expect(String(draft?.json.text).length).toBeLessThan(QUESTION.length);
    const last = calls.at(-1);
    expect(methodOf(last?.path ?? "")).toBe("editMessageText");
    expect(last?.json).toMatchObject({ text: QUESTION, parse_mode: "MarkdownV2" });
    // Typing only while the run worked: none after the reply's first text.
    const firstText = methods.indexOf("sendMessage");
    expect(methods.slice(firstText).filter((method) => method === "sendChatAction")).toEqual([]);
  });

  it("Telegram off: typing, then the final reply posted once, never edited", async () => {
    const { chat, runId } = await telegramTurn("tg-live-off");
    expect(await waitRun(runId)).toMatchObject({ status: "ok", reply: QUESTION });
    const sent = await waitForMethod(chat, "sendMessage");
    expect(sent.json).toMatchObject({ text: QUESTION });
    // Typing, renewed while the reply was being written (it took over 4 s), then the reply alone.
    const methods = (await platformCalls(chat)).map((call) => methodOf(call.path));
    expect(methods.at(-1)).toBe("sendMessage");
    expect(methods.slice(0, -1).length).toBeGreaterThanOrEqual(1);
    expect(methods.slice(0, -1).every((method) => method === "sendChatAction")).toBe(true);
  });

  it("Telegram: typing refused (403) changes nothing else: the run answers and its reply is delivered", async () => {
    const user = tgId();
    await platformScript(String(user), ["blocked"]);
    const update = tgUpdate({
      chat: { id: user, type: "private" },
      from: { id: user, is_bot: false, first_name: "Ada" },
      text: QUESTION,
    });
    const posted = await postTelegram("tg-live-off", update);
    expect(posted.status, posted.text).toBe(202);
    expect(await waitRun(String(posted.json.runId))).toMatchObject({ status: "ok", reply: QUESTION });
    const sent = await waitForMethod(String(user), "sendMessage");
    expect(sent.json).toMatchObject({ text: QUESTION });
  });

  it("Telegram interrupt: the interrupted run's draft is deleted; the new run answers both", async () => {
    const user = tgId();
    const send = async (text: string) => {
      const update = tgUpdate({
        chat: { id: user, type: "private" },
        from: { id: user, is_bot: false, first_name: "Ada" },
        text,
      });
      const posted = await postTelegram("tg-live-interrupt", update);
      expect(posted.status, posted.text).toBe(202);
      return String(posted.json.runId);
    };
    const first = await send(QUESTION);
    // The first run's draft is out: then a newer message interrupts it.
    const [, draft] = await platformCallsArrived(String(user), 2);
    expect(methodOf(draft?.path ?? "")).toBe("sendMessage");
    const second = await send("omega");
    const interrupted = await waitRun(first);
    expect(interrupted, JSON.stringify(interrupted)).toMatchObject({ runStatus: "killed" });
    expect(await waitRun(second)).toMatchObject({ status: "ok" });
    const draftId = (await platformCalls(String(user))).find(
      (call) => methodOf(call.path) === "deleteMessage",
    );
    const deleted = draftId ?? (await waitForMethod(String(user), "deleteMessage"));
    expect(deleted?.json).toMatchObject({ chat_id: String(user) });
  });

  it("Slack edit: a placeholder outside an assistant thread, completed by chat.update with the reply", async () => {
    const channel = `C${uid().toUpperCase()}`;
    const posted = await postSlack(
      "slack-live",
      slackEvent({ channel, channel_type: "im", user: `U${uid().toUpperCase()}`, text: QUESTION }),
    );
    expect(posted.status, posted.text).toBe(202);
    expect(await waitRun(String(posted.json.runId))).toMatchObject({ status: "ok", reply: QUESTION });
    await ledgerRowOnce(
      String(posted.json.sessionKey),
      "slack-live",
      (row) => row.status === "delivered",
      "the reply delivered",
    );
    const calls = await platformCalls(channel);
    const methods = calls.map((call) => methodOf(call.path));
    expect(methods[0]).toBe("chat.postMessage");
    expect(calls[0]?.json).toMatchObject({ text: "…" });
    expect(methods.slice(1).every((method) => method === "chat.update")).toBe(true);
    expect(methods.length).toBeGreaterThanOrEqual(2);
    expect(calls.at(-1)?.json).toMatchObject({ text: QUESTION });
  });

  it("Slack: in an assistant thread the status shows while the run works", async () => {
    const dm = `D${uid().toUpperCase()}`;
    const threadTs = "1700000000.000200";
    const posted = await postSlack(
      "slack-live",
      slackEvent({
        channel: dm,
        channel_type: "im",
        user: `U${uid().toUpperCase()}`,
        text: QUESTION,
        thread_ts: threadTs,
      }),
    );
    expect(posted.status, posted.text).toBe(202);
    expect(await waitRun(String(posted.json.runId))).toMatchObject({ status: "ok" });
    await ledgerRowOnce(
      String(posted.json.sessionKey),
      "slack-live",
      (row) => row.status === "delivered",
      "the reply delivered",
    );
    const calls = await platformCalls(dm);
    expect(methodOf(calls[0]?.path ?? "")).toBe("assistant.threads.setStatus");
    expect(calls[0]?.json).toMatchObject({ channel_id: dm, thread_ts: threadTs });
    expect(calls.at(-1)?.json).toMatchObject({ text: QUESTION });
  });

  it("Discord edit: @original is PATCHed as the reply comes and last with exactly the reply", async () => {
    const channel = `${Date.now()}${tgId()}`;
    const token = `interaction-token-${uid()}`;
    const deferred = await postDiscord("discord-live", {
      id: `${Date.now()}${tgId()}`,
      application_id: "112233445566778899",
      type: 2,
      token,
      version: 1,
      guild_id: "700",
      channel_id: channel,
      channel: { id: channel, type: 0 },
      member: { user: { id: "555", username: "ada" } },
      data: { id: "cmd-1", name: "ask", type: 1, options: [{ name: "text", type: 3, value: QUESTION }] },
    });
    expect(deferred.json).toEqual({ type: 5 });
    const calls = await waitForText(token, QUESTION);
    expect(calls.length).toBeGreaterThanOrEqual(2);
    expect(calls.every((call) => call.method === "PATCH" && call.path.endsWith("/messages/@original"))).toBe(
      true,
    );
    expect(calls.at(-1)?.json).toMatchObject({ content: QUESTION });
  });
});

/** The calls for `key` once one of them is `method`. */
async function waitForMethod(key: string, method: string) {
  for (let count = 1; ; count++) {
    const calls = await platformCallsArrived(key, count);
    const found = calls.find((call) => methodOf(call.path) === method);
    if (found) return found;
  }
}

/** The calls for `key` once one of them carries `text` as its content. */
async function waitForText(key: string, text: string) {
  for (let count = 1; ; count++) {
    const calls = await platformCallsArrived(key, count);
    if (calls.some((call) => call.json.content === text)) return calls;
  }
}
