import { describe, expect, it } from "vitest";
import { signatureHeader, verifySignatureHeader } from "../../src/channels/signature";
import {
  type ApiError,
  channelSecret,
  delivered,
  deliveries,
  getRun,
  getSession,
  inbound,
  postInbound,
  transcript,
  turns,
  uid,
  waitRun,
} from "../support";

describe("inbound channel message → session, run, reply delivered to the channel", () => {
  it("a direct message creates the session with its delivery context, runs, and posts the signed reply", async () => {
    const u = uid();
    const body = inbound({
      chatId: `dm-${u}`,
      senderId: `42${u}`,
      accountId: "bot-1",
      text: "ping",
      messageId: `m-${u}`,
    });
    const posted = await postInbound("telegram", body);
    const key = `agent:main:telegram:direct:42${u}`;
    expect(posted.status, posted.text).toBe(202);
    expect(posted.json).toEqual({
      status: "accepted",
      runId: expect.any(String),
      sessionKey: key,
      duplicate: false,
    });
    const { runId } = posted.json;

    const target = { channel: "telegram", to: `42${u}`, accountId: "bot-1" };
    expect((await getSession(key)).json).toMatchObject({
      key,
      agentId: "main",
      kind: "other",
      channel: "telegram",
      lastChannel: "telegram",
      lastTo: `42${u}`,
      deliveryContext: target,
    });
    expect(await waitRun(runId)).toMatchObject({ status: "ok", reply: "pong" });
    expect((await transcript(key))[0]).toMatchObject({
      id: `channel:telegram:m-${u}`,
      role: "user",
      content: "ping",
      provenance: { kind: "external_user", sourceChannel: "telegram" },
      runId,
    });

    const [post, ...more] = await delivered(key, 1);
    expect(more).toEqual([]);
    if (!post) throw new Error("reply not delivered");
    expect(post.json).toEqual({
      ...target,
      text: "pong",
      sessionKey: key,
      runId,
      idempotencyKey: `${runId}:reply`,
    });
    expect(post.headers["idempotency-key"]).toBe(`${runId}:reply`);
    expect(
      await verifySignatureHeader(
        await channelSecret("telegram"),
        post.headers["x-switchboard-signature"],
        post.body,
      ),
    ).toBe(true);
  });

  it("maps chat types, threads and topics to session keys; replies go back to the chat as it was addressed", async () => {
    const u = uid();
    const cases = [
      {
        channel: "discord",
        body: { chatType: "direct", chatId: "ignored", senderId: `Peer${u}` },
        key: `agent:main:discord:direct:peer${u}`,
        target: { channel: "discord", to: `direct:Peer${u}` },
      },
      {
        channel: "discord",
        body: { chatType: "group", chatId: `DevRoom${u}`, senderId: "s1" },
        key: `agent:main:discord:group:devroom${u}`,
        target: { channel: "discord", to: `group:DevRoom${u}` },
      },
      {
        channel: "discord",
        body: { chatType: "group", chatId: `dev${u}`, senderId: "s1", threadId: "T55" },
        key: `agent:main:discord:group:dev${u}:thread:t55`,
        target: { channel: "discord", to: `group:dev${u}`, threadId: "T55" },
      },
      {
        channel: "telegram",
        body: { chatType: "group", chatId: `-100${u}`, senderId: "s1", threadId: 99 },
        key: `agent:main:telegram:group:-100${u}:topic:99`,
        target: { channel: "telegram", to: `-100${u}`, threadId: 99 },
      },
      {
        channel: "telegram",
        body: { chatType: "channel", chatId: `-200${u}`, senderId: "s1" },
        key: `agent:main:telegram:channel:-200${u}`,
        target: { channel: "telegram", to: `-200${u}` },
      },
      {
        channel: "webchat",
        body: { chatType: "direct", chatId: "c", senderId: `visitor${u}`, agentId: "research" },
        key: `agent:research:webchat:direct:visitor${u}`,
        target: { channel: "webchat", to: `direct:visitor${u}` },
      },
    ];
    const accepted = await Promise.all(
      cases.map(async (entry, index) => {
        const posted = await postInbound(entry.channel, {
          ...entry.body,
          text: `hi ${index}`,
          messageId: `m${u}`,
        });
        expect(posted.status, posted.text).toBe(202);
        expect(posted.json).toMatchObject({ status: "accepted", sessionKey: entry.key, duplicate: false });
        return posted.json.runId as string;
      }),
    );
    // Same messageId in six chats: six runs, each indexed under its own session.
    expect(new Set(accepted).size).toBe(cases.length);
    for (const [index, entry] of cases.entries()) {
      const runId = accepted[index] ?? "";
      expect((await getRun(runId)).sessionKey).toBe(entry.key);
      expect((await getSession(entry.key)).json.deliveryContext).toEqual(entry.target);
      const reply = entry.key.startsWith("agent:research") ? `Findings: hi ${index}` : `Got it: hi ${index}`;
      expect(await waitRun(runId)).toMatchObject({ status: "ok", reply });
    }
    const posts = await Promise.all(cases.map((entry) => delivered(entry.key, 1)));
    expect(posts.map((list) => list.map((post) => post.json))).toEqual(
      cases.map((entry, index) => [
        {
          ...entry.target,
          text: entry.key.startsWith("agent:research") ? `Findings: hi ${index}` : `Got it: hi ${index}`,
          sessionKey: entry.key,
          runId: accepted[index],
          idempotencyKey: `${accepted[index]}:reply`,
        },
      ]),
    );
  });

  it("a redelivered messageId is a no-op: the same run, one message, one reply", async () => {
    const u = uid();
    const body = inbound({
      chatType: "group",
      chatId: `g${u}`,
      senderId: "s1",
      text: "once",
      messageId: `dup-${u}`,
    });
    const key = `agent:main:telegram:group:g${u}`;
    const first = await postInbound("telegram", body);
    const again = await postInbound("telegram", body);
    expect(again.status).toBe(202);
    expect(again.json).toEqual({ ...first.json, duplicate: true });
    await waitRun(first.json.runId);
    expect(await postInbound("telegram", body)).toMatchObject({
      json: { duplicate: true, runId: first.json.runId },
    });
    expect(await turns(key)).toEqual([
      ["user", "once"],
      ["assistant", "Got it: once"],
    ]);
    expect((await delivered(key, 1)).map((post) => post.json.text)).toEqual(["Got it: once"]);
  });

  it("a channel whose send policy denies it records the message and runs nothing (discord channel rule)", async () => {
    const u = uid();
    const key = `agent:main:discord:channel:news${u}`;
    const posted = await postInbound(
      "discord",
      inbound({ chatType: "channel", chatId: `news${u}`, senderId: "s1", text: "ping", messageId: `m-${u}` }),
    );
    expect(posted.status).toBe(202);
    expect(posted.json).toEqual({
      status: "blocked",
      sessionKey: key,
      error: "send blocked by session policy",
    });
    expect(await turns(key)).toEqual([["user", "ping"]]);
    expect((await transcript(key))[0]?.runId).toBeUndefined();
  });
});

describe("inbound authentication and validation", () => {
  const fresh = () => {
    const u = uid();
    return {
      u,
      body: inbound({ senderId: `auth${u}`, chatId: "c", messageId: `m-${u}` }),
      key: `agent:main:telegram:direct:auth${u}`,
    };
  };

  it("refuses a bad or missing signature with 401 and writes nothing", async () => {
    const now = Math.floor(Date.now() / 1000);
    const { body, key } = fresh();
    const raw = JSON.stringify(body);
    const tampered = JSON.stringify({ ...body, text: "changed" });
    const attempts = [
      await postInbound("telegram", body, { secret: "some-other-secret-0123456789abcdef" }),
      await postInbound("telegram", body, { signature: "" }),
      await postInbound("telegram", body, { signature: `t=${now},v1=zz` }),
      await postInbound("telegram", tampered, {
        signature: await signatureHeader(await channelSecret("telegram"), raw),
      }),
    ];
    for (const attempt of attempts) {
      expect(attempt.status).toBe(401);
      expect(attempt.json).toEqual({ error: { code: "unauthorized", message: "unauthorized" } });
    }
    expect((await getSession(key)).status).toBe(404);
    expect(await deliveries(key)).toEqual([]);
  });

  it("accepts a signature up to 5 minutes old or ahead, and refuses one beyond", async () => {
    const now = Math.floor(Date.now() / 1000);
    const stale = fresh();
    // A margin beyond the 300 s: on a loaded machine the Worker's clock may be seconds past `now`.
    expect((await postInbound("telegram", stale.body, { unixSeconds: now - 330 })).status).toBe(401);
    expect((await postInbound("telegram", stale.body, { unixSeconds: now + 330 })).status).toBe(401);
    expect((await getSession(stale.key)).status).toBe(404);
    expect((await postInbound("telegram", stale.body, { unixSeconds: now - 290 })).status).toBe(202);
    const ahead = fresh();
    expect((await postInbound("telegram", ahead.body, { unixSeconds: now + 290 })).status).toBe(202);
  });

  it("answers 404 for an unknown channel and 400 naming the field for a bad body", async () => {
    const { body, key } = fresh();
    const unknown = await postInbound<ApiError>("carrier-pigeon", body);
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.message).toContain('unknown channel "carrier-pigeon"');
    const bad: [Record<string, unknown> | string, RegExp][] = [
      [{ ...body, chatType: undefined }, /^chatType required$/],
      [{ ...body, chatType: "forum" }, /^chatType: /],
      [{ ...body, text: "" }, /^text: /],
      [{ ...body, messageId: undefined }, /^messageId required$/],
      [{ ...body, senderId: 7 }, /^senderId: /],
      [{ ...body, extra: true }, /^unknown field extra$/],
      [{ ...body, agentId: "nobody" }, /^agentId: unknown agent "nobody"$/],
      ["not json", /not valid JSON/],
    ];
    for (const [payload, message] of bad) {
      const answer = await postInbound<ApiError>("telegram", payload);
      expect(answer.status, JSON.stringify(payload)).toBe(400);
      expect(answer.json.error.message).toMatch(message);
    }
    expect((await getSession(key)).status).toBe(404);
  });
});
