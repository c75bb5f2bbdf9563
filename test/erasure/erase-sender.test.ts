import { describe, expect, it } from "vitest";
import {
  ADMIN,
  AGENT_TOKENS,
  call,
  getSession,
  inbound,
  postInbound,
  settleAll,
  transcript,
  turns,
  waitRun,
} from "../support";
import { newCanary, scanObjects, scanShards } from "./canary";

/** A webchat message (agent main answers "Got it: …"), its run waited for; answers the session key. */
async function said(fields: Record<string, unknown>): Promise<string> {
  const posted = await postInbound("webchat", inbound({ messageId: crypto.randomUUID(), ...fields }));
  expect(posted.status, posted.text).toBe(202);
  if (!("runId" in posted.json)) throw new Error(posted.text);
  await waitRun(String(posted.json.runId));
  return posted.json.sessionKey;
}

const erase = (body: unknown, token = ADMIN) =>
  call<{ erased: Record<string, number> }>("POST", "/v1/erase", { token, body });

describe("POST /v1/erase { channel, senderId } (SPEC §23)", () => {
  it("erases the sender's direct session and their messages in groups; others' words stay", async () => {
    const canary = newCanary();
    const person = `p${crypto.randomUUID().slice(0, 8)}`;
    const other = `o${crypto.randomUUID().slice(0, 8)}`;
    const chatId = `g${crypto.randomUUID().slice(0, 8)}`;
    const direct = await said({ chatId: person, senderId: person, text: `hi, I am ${canary}` });
    const group = await said({ chatType: "group", chatId, senderId: person, text: `call me ${canary}` });
    await said({ chatType: "group", chatId, senderId: other, text: "nice to meet you" });
    await settleAll([direct, group]);
    expect(Object.keys(await scanObjects([direct, group], canary))).not.toEqual([]);

    const answer = await erase({ channel: "webchat", senderId: person });
    expect(answer.status, answer.text).toBe(200);
    // In the group: the person's message and the answer to it; their search rows.
    expect(answer.json).toEqual({
      erased: {
        sessions: 1,
        children: 0,
        messages: 2,
        searchRows: 2,
        sent: 0,
        notices: 0,
        quotes: 0,
        summaries: 0,
        pending: 0,
      },
    });
    await settleAll([direct, group]);
    expect((await getSession(direct)).status).toBe(404);
    expect(await turns(group)).toEqual([
      ["user", "[erased]"],
      ["assistant", "[erased]"],
      ["user", "nice to meet you"],
      ["assistant", "Got it: nice to meet you"],
    ]);
    expect((await transcript(group))[0]?.provenance).toMatchObject({ senderId: person });
    expect(await scanObjects([direct, group], canary)).toEqual({});
    expect(await scanShards(canary)).toEqual({});

    // Again: nothing left to erase.
    expect((await erase({ channel: "webchat", senderId: person })).json).toEqual({
      erased: {
        sessions: 0,
        children: 0,
        messages: 0,
        searchRows: 0,
        sent: 0,
        notices: 0,
        quotes: 0,
        summaries: 0,
        pending: 0,
      },
    });
  });

  it("bad input names the field; the operator's alone", async () => {
    const missing = await erase({ channel: "webchat" });
    expect(missing.status).toBe(400);
    expect(missing.text).toContain("senderId");
    const unknown = await erase({ channel: "nowhere", senderId: "x" });
    expect(unknown.status).toBe(400);
    expect(unknown.text).toContain("channel");
    const colon = await erase({ channel: "webchat", senderId: "a:b" });
    expect(colon.status).toBe(400);
    expect(colon.text).toContain("senderId");
    const extra = await erase({ channel: "webchat", senderId: "x", all: true });
    expect(extra.status).toBe(400);
    const agent = await erase({ channel: "webchat", senderId: "x" }, AGENT_TOKENS.main);
    expect(agent.status).toBe(403);
    expect(agent.text).toContain("erase");
  });
});
