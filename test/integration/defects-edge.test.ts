import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { mintRunToken } from "../../src/auth/run-token";
import { sessionApi } from "../../src/session/client";
import {
  ADMIN,
  AGENT_TOKENS,
  call,
  createSession,
  inbound,
  postInbound,
  type SessionRow,
  SIGNING_KEY,
  sendMessage,
  sessionPath,
  stub,
  turns,
  uid,
  waitRun,
} from "../support";
import type { ApiError } from "../support/wire";

/** A run token for a run of a session, valid (by its own `exp`) for ten more minutes. */
const tokenFor = (sessionKey: string, runId: string) =>
  mintRunToken(SIGNING_KEY, {
    agentId: "main",
    sessionKey,
    runId,
    depth: 0,
    sandboxed: false,
    exp: Math.floor(Date.now() / 1000) + 600,
  });

const statusWith = (token: string) => call("POST", "/v1/tools/session_status", { token, body: {} });

describe("run tokens act only while their run lives (issue 17, item 6)", () => {
  it("works during the run's grace after its end, then is a 401", async () => {
    const key = (await createSession({ agentId: "main", key: `agent:main:tok-${uid()}` })).key;
    const runId = await sendMessage(key, "ping");
    expect(await waitRun(runId)).toMatchObject({ status: "ok" });
    const token = await tokenFor(key, runId);
    expect((await statusWith(token)).status).toBe(200);
    // The run ended long ago: past the grace, a token whose own `exp` is still ahead is refused.
    await runInDurableObject(stub(key), (_instance, state) => {
      state.storage.sql.exec("UPDATE run SET ended_at = ? WHERE run_id = ?", Date.now() - 120_000, runId);
    });
    const refused = await statusWith(token);
    expect(refused.status).toBe(401);
    expect(refused.json).toEqual({ error: { code: "unauthorized", message: "unauthorized" } });
  });

  it("is a 401 once its session is deleted, and for a run that never existed", async () => {
    const key = (await createSession({ agentId: "main", key: `agent:main:tok-${uid()}` })).key;
    const runId = await sendMessage(key, "ping");
    await waitRun(runId);
    const token = await tokenFor(key, runId);
    expect((await statusWith(token)).status).toBe(200);
    expect((await call("DELETE", sessionPath(key), { token: ADMIN })).status).toBe(200);
    expect((await statusWith(token)).status).toBe(401);
    expect((await statusWith(await tokenFor(`agent:main:main`, crypto.randomUUID()))).status).toBe(401);
  });
});

describe("a refused sessions_send names the key only to a caller who gave it (issue 17, item 7)", () => {
  it("by sessionId or label: no sessionKey in the refusal; by key: the key", async () => {
    const u = uid();
    // Visibility `tree` (the test config): main's own main session may not send to a sibling session.
    const hidden = await createSession({
      agentId: "main",
      key: `agent:main:telegram:direct:peer${u}`,
      label: `p${u}`,
    });
    const send = (args: Record<string, unknown>) =>
      call("POST", "/v1/tools/sessions_send", {
        token: AGENT_TOKENS.main,
        body: { ...args, message: "hi", timeoutSeconds: 0 },
      });
    const byId = await send({ sessionKey: hidden.sessionId });
    expect(byId.json).toMatchObject({ status: "forbidden" });
    expect(byId.json).not.toHaveProperty("sessionKey");
    expect(JSON.stringify(byId.json)).not.toContain(`peer${u}`);
    const byLabel = await send({ label: `p${u}` });
    expect(byLabel.json).toMatchObject({ status: "forbidden" });
    expect(byLabel.json).not.toHaveProperty("sessionKey");
    const byKey = await send({ sessionKey: hidden.key });
    expect(byKey.json).toMatchObject({ status: "forbidden", sessionKey: hidden.key });
  });
});

describe("channel ids cannot merge chats (issue 17, item 10)", () => {
  it.each([
    ["chatId", { chatType: "group", chatId: "c:thread:x", senderId: "s" }],
    ["senderId", { chatType: "direct", chatId: "c", senderId: "a:b" }],
    ["threadId", { chatType: "group", chatId: "c", senderId: "s", threadId: "t:1" }],
    ["accountId", { chatType: "group", chatId: "c", senderId: "s", accountId: "a:1" }],
  ])("a %s with ':' is a 400 naming it, and nothing is written", async (field, fields) => {
    const u = uid();
    const posted = await postInbound<ApiError>(
      "telegram",
      inbound({ ...fields, text: "hi", messageId: `m-${u}` }),
    );
    expect(posted.status).toBe(400);
    expect(posted.json.error.message).toContain(field);
    expect(posted.json.error.message).toContain('":"');
  });

  it("a chat whose id looks like another chat's thread stays refused; that thread is its own session", async () => {
    const u = uid();
    const thread = await postInbound(
      "telegram",
      inbound({
        chatType: "group",
        chatId: `c${u}`,
        threadId: "x",
        senderId: "s",
        text: "in the topic",
        messageId: `t-${u}`,
      }),
    );
    expect(thread.json.sessionKey).toBe(`agent:main:telegram:group:c${u}:topic:x`);
    const lookalike = await postInbound(
      "telegram",
      inbound({
        chatType: "group",
        chatId: `c${u}:topic:x`,
        senderId: "s",
        text: "merged?",
        messageId: `l-${u}`,
      }),
    );
    expect(lookalike.status).toBe(400);
    await waitRun(thread.json.runId);
    expect(await turns(thread.json.sessionKey)).toEqual([
      ["user", "in the topic"],
      ["assistant", "Got it: in the topic"],
    ]);
  });
});

describe("an owner's /send command is one write (issue 17, item 11)", () => {
  it("the command's record and its policy change commit together, in the one call the route makes", async () => {
    const u = uid();
    const key = `agent:main:discord:group:cmd${u}`;
    await createSession({ agentId: "main", key, channel: "discord", chatType: "group" });
    const replyTo = { channel: "discord", to: `group:cmd${u}` };
    // Exactly what the route does for `/send off`: one call to the session object. Cut after it, nothing
    // is half-done: the record and the policy are both there.
    const recorded = await sessionApi(env.SESSION, key).acceptInbound({
      init: {
        sessionKey: key,
        agentId: "main",
        channel: "discord",
        chatType: "group",
        deliveryContext: replyTo,
      },
      channelMessageId: `m-${u}`,
      text: "/send off",
      senderId: "owner-1",
      runId: crypto.randomUUID(),
    });
    expect(recorded).toEqual({
      ok: true,
      value: { status: "command", sendPolicy: "deny", duplicate: false },
    });
    expect((await call<SessionRow>("GET", sessionPath(key), { token: ADMIN })).json.sendPolicy).toBe("deny");

    // The redelivery of the same post (the bridge retried after the cut) is a duplicate and keeps the policy.
    const again = await postInbound(
      "discord",
      inbound({
        chatType: "group",
        chatId: `cmd${u}`,
        senderId: "owner-1",
        text: "/send off",
        messageId: `m-${u}`,
      }),
    );
    expect(again.json).toEqual({ status: "command", sessionKey: key, sendPolicy: "deny", duplicate: true });
    expect((await call<SessionRow>("GET", sessionPath(key), { token: ADMIN })).json.sendPolicy).toBe("deny");
  });
});

describe("channel text is trimmed as everywhere (issue 17, item 12)", () => {
  it("a text of only spaces is a 400 naming text, and starts no run", async () => {
    const u = uid();
    const posted = await postInbound<ApiError>(
      "telegram",
      inbound({
        chatType: "direct",
        senderId: `blank${u}`,
        chatId: "c",
        text: "   \n\t ",
        messageId: `m-${u}`,
      }),
    );
    expect(posted.status).toBe(400);
    expect(posted.json.error.message).toContain("text");
    const session = await call("GET", sessionPath(`agent:main:telegram:direct:blank${u}`), { token: ADMIN });
    expect(session.status).toBe(404);
  });
});
