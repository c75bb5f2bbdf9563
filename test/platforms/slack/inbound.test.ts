import { describe, expect, it } from "vitest";
import { getSession, modelRequests, transcript, uid, waitRun } from "../../support";
import { TEST_BOTS } from "../../support/platforms/identity";
import { inboundState, postSlack, runReplyTarget, slackEvent } from "../../support/platforms/inbound";

const BOT = TEST_BOTS.slack;

describe("Slack inbound: the v0 signature, url_verification, Events API mapping", () => {
  it("url_verification is answered with its challenge, as plain text", async () => {
    const answered = await postSlack("slack-in", {
      type: "url_verification",
      token: "t",
      challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P",
    });
    expect(answered.status).toBe(200);
    expect(answered.text).toBe("3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P");
  });

  it("a direct message (im) signed with the signing secret starts a run", async () => {
    const user = `U${uid().toUpperCase()}`;
    const envelope = slackEvent({ channel: "D0DM", channel_type: "im", user, text: "hello there" });
    const posted = await postSlack("slack-in", envelope);
    expect(posted.status, posted.text).toBe(202);
    const key = `agent:main:slack-in:direct:${user.toLowerCase()}`;
    expect(posted.json).toMatchObject({ status: "accepted", sessionKey: key, duplicate: false });
    expect(await waitRun(String(posted.json.runId))).toMatchObject({ reply: "Got it: hello there" });
    const ts = (envelope.event as { ts: string }).ts;
    expect(await runReplyTarget(key, String(posted.json.runId))).toEqual({
      channel: "slack-in",
      to: "D0DM",
      replyToMessageId: ts,
    });
  });

  it("a bad signature, another secret, or a stale timestamp is 401 and writes nothing", async () => {
    const attempts = [
      { secret: "not-the-signing-secret" },
      { unixSeconds: Math.floor(Date.now() / 1000) - 301 },
      { headers: { "X-Slack-Signature": "v0=00" } },
    ];
    for (const options of attempts) {
      const user = `U${uid().toUpperCase()}`;
      const posted = await postSlack(
        "slack-in",
        slackEvent({ channel: "D0DM", channel_type: "im", user }),
        options,
      );
      expect(posted.status).toBe(401);
      expect((await getSession(`agent:main:slack-in:direct:${user.toLowerCase()}`)).status).toBe(404);
    }
  });

  it("a retry (X-Slack-Retry-Num) and the app_mention twin of a message are no-ops", async () => {
    const channel = `C${uid().toUpperCase()}`;
    const envelope = slackEvent({ channel, text: `<@${BOT.userId}> status?` });
    const first = await postSlack("slack-in", envelope);
    expect(first.json).toMatchObject({ status: "accepted", duplicate: false });
    const retry = await postSlack("slack-in", envelope, {
      headers: { "X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_timeout" },
    });
    expect(retry.json).toMatchObject({ status: "accepted", runId: first.json.runId, duplicate: true });
    const { channel_type: _, ...mention } = envelope.event as Record<string, unknown>;
    const twin = await postSlack("slack-in", { ...envelope, event: { ...mention, type: "app_mention" } });
    expect(twin.json).toMatchObject({ runId: first.json.runId, duplicate: true });
    await waitRun(String(first.json.runId));
    const key = `agent:main:slack-in:channel:${channel.toLowerCase()}`;
    expect((await transcript(key)).filter((message) => message.role === "user")).toHaveLength(1);
  });

  it("chat types and threads: mpim and private channels are groups, channels channels, thread_ts a thread", async () => {
    const id = uid().toUpperCase();
    const mention = `<@${BOT.userId}> hi`;
    const mpim = await postSlack(
      "slack-in",
      slackEvent({ channel: `G${id}`, channel_type: "mpim", text: mention }),
    );
    expect(mpim.json).toMatchObject({ sessionKey: `agent:main:slack-in:group:g${id.toLowerCase()}` });
    const secret = await postSlack(
      "slack-in",
      slackEvent({ channel: `G${id}X`, channel_type: "group", text: mention }),
    );
    expect(secret.json).toMatchObject({ sessionKey: `agent:main:slack-in:group:g${id.toLowerCase()}x` });
    const inThread = await postSlack(
      "slack-in",
      slackEvent({ channel: `C${id}`, text: mention, thread_ts: "1700000000.000100" }),
    );
    expect(inThread.json).toMatchObject({
      sessionKey: `agent:main:slack-in:channel:c${id.toLowerCase()}:thread:1700000000.000100`,
    });
    // app_mention carries no channel_type: the id says what the chat is.
    const { channel_type: _, ...event } = slackEvent({ channel: `C${id}Z`, text: mention }).event as Record<
      string,
      unknown
    >;
    const byId = await postSlack("slack-in", slackEvent({ ...event, type: "app_mention" }));
    expect(byId.json).toMatchObject({ sessionKey: `agent:main:slack-in:channel:c${id.toLowerCase()}z` });
  });

  it("the bot's own mention is removed, others made readable", async () => {
    const posted = await postSlack(
      "slack-in",
      slackEvent({
        channel: `C${uid().toUpperCase()}`,
        text: `<@${BOT.userId}> ask <@U0BOB|bob> in <#C0DEV|dev> &amp; see <https://x.test|the doc>`,
      }),
    );
    expect(await waitRun(String(posted.json.runId))).toMatchObject({
      reply: "Got it: ask @bob in #dev & see the doc (https://x.test)",
    });
  });

  it("bots (this one too), edits, deletions, joins and unknown events are acknowledged 200 and start nothing", async () => {
    const before = (await inboundState("slack-in"))?.ignoredCount ?? 0;
    const channel = `C${uid().toUpperCase()}`;
    const cases = [
      slackEvent({ channel, bot_id: BOT.botId, user: BOT.userId, text: `<@${BOT.userId}> echo` }),
      slackEvent({ channel, subtype: "message_changed", message: { text: "x" } }),
      slackEvent({ channel, subtype: "message_deleted", deleted_ts: "1.2" }),
      slackEvent({ channel, subtype: "channel_join", text: "<@U0ADA> has joined" }),
      slackEvent({ type: "reaction_added", channel, reaction: "+1" }),
      { type: "app_rate_limited", minute_rate_limited: 1 },
    ];
    for (const envelope of cases) {
      const posted = await postSlack("slack-in", envelope);
      expect(posted.status, JSON.stringify(envelope)).toBe(200);
      expect(posted.json).toMatchObject({ status: "ignored" });
    }
    expect((await getSession(`agent:main:slack-in:channel:${channel.toLowerCase()}`)).status).toBe(404);
    expect((await inboundState("slack-in"))?.ignoredCount).toBeGreaterThanOrEqual(before + cases.length);
  });

  it("allowFrom drops everyone else", async () => {
    const stranger = await postSlack(
      "slack-allow",
      slackEvent({ channel: "D0X", channel_type: "im", user: "UOTHER" }),
    );
    expect(stranger.json).toEqual({ status: "dropped" });
    expect((await getSession("agent:main:slack-allow:direct:uother")).status).toBe(404);
    const allowed = await postSlack(
      "slack-allow",
      slackEvent({ channel: "D0Y", channel_type: "im", user: "UALLOWED" }),
    );
    expect(allowed.json).toMatchObject({ status: "accepted" });
  });
});

describe("Slack groups: unaddressed channel messages are context, the newest groupHistoryLimit kept", () => {
  it("the addressed turn's prompt has the context; older context beyond the limit is pruned", async () => {
    const channel = `C${uid().toUpperCase()}`;
    const key = `agent:platform-echo-rec:slack-groups:channel:${channel.toLowerCase()}`;
    const marker = uid();
    for (const n of [1, 2, 3, 4]) {
      const said = await postSlack(
        "slack-groups",
        slackEvent({ channel, user: `U0P${n}`, text: `note ${n} ${marker}` }),
      );
      expect(said.json).toMatchObject({ status: "context", sessionKey: key });
    }
    const asked = await postSlack(
      "slack-groups",
      slackEvent({ channel, text: `<@${BOT.userId}> summarise ${marker}` }),
    );
    expect(asked.json).toMatchObject({ status: "accepted" });
    await waitRun(String(asked.json.runId));
    // groupHistoryLimit 3: the first note is gone from the transcript and from the prompt.
    const users = (await transcript(key))
      .filter((message) => message.role === "user")
      .map((message) => message.content);
    expect(users).toEqual([
      `note 2 ${marker}`,
      `note 3 ${marker}`,
      `note 4 ${marker}`,
      `summarise ${marker}`,
    ]);
    const [request] = await modelRequests("platform-echo-rec", `summarise ${marker}`);
    const sent = JSON.stringify(request?.messages ?? []);
    for (const n of [2, 3, 4]) expect(sent).toContain(`note ${n} ${marker}`);
    expect(sent).not.toContain(`note 1 ${marker}`);
  });

  it("a reply in a thread the bot started addresses it", async () => {
    const channel = `C${uid().toUpperCase()}`;
    const posted = await postSlack(
      "slack-in",
      slackEvent({ channel, text: "and then?", thread_ts: "1700000000.000200", parent_user_id: BOT.userId }),
    );
    expect(posted.json).toMatchObject({ status: "accepted" });
    const unrelated = await postSlack(
      "slack-in",
      slackEvent({ channel, text: "and then?", thread_ts: "1700000000.000300", parent_user_id: "U0ADA" }),
    );
    expect(unrelated.json).toMatchObject({ status: "context" });
  });
});
