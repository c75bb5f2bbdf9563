import { describe, expect, it } from "vitest";
import {
  ADMIN,
  call,
  deferredRun,
  delivered,
  getRun,
  getSession,
  postInbound,
  turns,
  uid,
  waitRun,
} from "../support";

const OFF = "Sending is off for this chat.";
const ON = "Sending is on for this chat.";
const INHERIT = "This chat now follows the default send policy.";

/** The session row over REST, as the operator sees it. */
const sessionRow = async (key: string) => (await getSession(key)).json;

/** A chat to post into: each call is a new message with a fresh messageId. */
function chat(channel: string, fields: Record<string, unknown>) {
  return (senderId: string, text: string) =>
    postInbound(channel, { ...fields, senderId, text, messageId: `m-${crypto.randomUUID()}` });
}

describe("/send off|on|inherit from a channel owner (SPEC §6)", () => {
  it("off: confirmed, no run; later messages are recorded but blocked; inherit restores", async () => {
    const u = uid();
    const key = `agent:main:discord:group:ops${u}`;
    const say = chat("discord", { chatType: "group", chatId: `ops${u}` });

    const off = await say("owner-1", "/send off");
    expect(off.status).toBe(200);
    expect(off.json).toEqual({ status: "command", sessionKey: key, sendPolicy: "deny", duplicate: false });
    expect((await sessionRow(key)).sendPolicy).toBe("deny");
    const [confirmation] = await delivered(key, 1);
    expect(confirmation?.json).toEqual({
      channel: "discord",
      to: `group:ops${u}`,
      text: OFF,
      sessionKey: key,
      runId: expect.any(String),
      idempotencyKey: `${confirmation?.json.runId}:command`,
    });
    // The command started no run.
    expect((await call("GET", `/v1/runs/${confirmation?.json.runId}`, { token: ADMIN })).status).toBe(404);

    const blocked = await say("member-2", "ping");
    expect(blocked.status).toBe(202);
    expect(blocked.json).toEqual({
      status: "blocked",
      sessionKey: key,
      error: "send blocked by session policy",
    });

    const inherit = await say("owner-1", "/send inherit");
    expect(inherit.json).toEqual({
      status: "command",
      sessionKey: key,
      sendPolicy: "inherit",
      duplicate: false,
    });
    expect((await sessionRow(key)).sendPolicy).toBeUndefined();
    const accepted = await say("member-2", "ping");
    expect(accepted.json).toMatchObject({ status: "accepted", duplicate: false });
    expect((await waitRun(accepted.json.runId)).reply).toBe("pong");

    const posts = await delivered(key, 3);
    // The blocked ping was never run, so the only pong is the later run's.
    expect(posts.map((post) => [post.json.text, post.json.runId === accepted.json.runId]).sort()).toEqual(
      [
        [OFF, false],
        [INHERIT, false],
        ["pong", true],
      ].sort(),
    );
    expect(await turns(key)).toEqual([
      ["user", "/send off"],
      ["assistant", OFF],
      ["user", "ping"],
      ["user", "/send inherit"],
      ["assistant", INHERIT],
      ["user", "ping"],
      ["assistant", "pong"],
    ]);
  });

  it("a redelivered command is a no-op: it does not undo a later one, nor confirm twice", async () => {
    const u = uid();
    const key = `agent:main:discord:group:replay${u}`;
    const fields = { chatType: "group", chatId: `replay${u}`, senderId: "owner-1" };
    const off = { ...fields, text: "/send off", messageId: `off-${u}` };
    expect((await postInbound("discord", off)).json.sendPolicy).toBe("deny");
    expect(
      (await postInbound("discord", { ...fields, text: "/send on", messageId: `on-${u}` })).json.sendPolicy,
    ).toBe("allow");
    const replay = await postInbound("discord", off);
    expect(replay.status).toBe(200);
    expect(replay.json).toEqual({ status: "command", sessionKey: key, sendPolicy: "allow", duplicate: true });
    expect((await sessionRow(key)).sendPolicy).toBe("allow");
    expect(await turns(key)).toEqual([
      ["user", "/send off"],
      ["assistant", OFF],
      ["user", "/send on"],
      ["assistant", ON],
    ]);
    expect((await delivered(key, 2)).map((post) => post.json.text).sort()).toEqual([OFF, ON].sort());
  });

  it("from a non-owner in a group, /send off is an ordinary message", async () => {
    const u = uid();
    const key = `agent:main:discord:group:crowd${u}`;
    const posted = await chat("discord", { chatType: "group", chatId: `crowd${u}` })("member-2", "/send off");
    expect(posted.status).toBe(202);
    expect(posted.json).toMatchObject({ status: "accepted", sessionKey: key });
    expect((await waitRun(posted.json.runId)).reply).toBe("Got it: /send off");
    expect((await sessionRow(key)).sendPolicy).toBeUndefined();
    expect((await delivered(key, 1)).map((post) => post.json.text)).toEqual(["Got it: /send off"]);
  });

  it("any direct-chat peer owns its chat: /send off then /send on", async () => {
    const u = uid();
    const key = `agent:main:telegram:direct:peer${u}`;
    const say = chat("telegram", { chatType: "direct", chatId: "dm" });
    expect((await say(`peer${u}`, "/send OFF")).json).toMatchObject({
      status: "command",
      sendPolicy: "deny",
    });
    expect((await say(`peer${u}`, "hello")).json.status).toBe("blocked");
    expect((await say(`peer${u}`, "/send on")).json).toEqual({
      status: "command",
      sessionKey: key,
      sendPolicy: "allow",
      duplicate: false,
    });
    const accepted = await say(`peer${u}`, "hello again");
    expect((await waitRun(accepted.json.runId)).reply).toBe("Got it: hello again");
    expect((await delivered(key, 3)).map((post) => post.json.text).sort()).toEqual(
      [OFF, ON, "Got it: hello again"].sort(),
    );
  });

  it("an owner's /send on overrides a config rule that denies the chat (discord channel)", async () => {
    const u = uid();
    const key = `agent:main:discord:channel:news${u}`;
    const say = chat("discord", { chatType: "channel", chatId: `news${u}` });
    expect((await say("reader", "ping")).json.status).toBe("blocked");
    expect((await say("owner-1", "/send on")).json.sendPolicy).toBe("allow");
    const accepted = await say("reader", "ping");
    expect(accepted.json.status).toBe("accepted");
    expect((await waitRun(accepted.json.runId)).reply).toBe("pong");
    expect((await delivered(key, 2)).map((post) => post.json.text).sort()).toEqual([ON, "pong"].sort());
  });

  it("a reply of a run that ends after /send off is not delivered (policy checked at delivery)", async () => {
    const u = uid();
    const key = `agent:hook-async-rec:discord:group:late${u}`;
    const say = chat("discord", { chatType: "group", chatId: `late${u}`, agentId: "hook-async-rec" });
    const accepted = await say("member-2", "slow question");
    expect(accepted.json).toMatchObject({ status: "accepted", sessionKey: key });
    const runId = accepted.json.runId;
    const post = await deferredRun(key, runId);
    expect((await say("owner-1", "/send off")).json.sendPolicy).toBe("deny");

    const result = await call("POST", `/v1/runs/${runId}/result`, {
      token: post.runToken,
      body: { text: "late answer" },
    });
    expect(result.json).toMatchObject({ status: "ok", reply: "late answer" });
    expect((await getRun(runId)).status).toBe("ok");
    // Turned back on afterwards: only the two confirmations were ever posted, never the late answer.
    expect((await say("owner-1", "/send inherit")).json.status).toBe("command");
    const posts = await delivered(key, 2);
    expect(posts.map((delivery) => delivery.json.text).sort()).toEqual([INHERIT, OFF].sort());
    expect(await turns(key)).toEqual([
      ["user", "slow question"],
      ["user", "/send off"],
      ["assistant", OFF],
      ["assistant", "late answer"],
      ["user", "/send inherit"],
      ["assistant", INHERIT],
    ]);
  });
});
