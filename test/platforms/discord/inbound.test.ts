import { describe, expect, it } from "vitest";
import { getSession, transcript, uid, waitRun } from "../../support";
import { DISCORD_APPLICATION_ID } from "../../support/platforms/channels-config";
import { postDiscord, runReplyTarget } from "../../support/platforms/inbound";

/** A snowflake-like id unique to the test. */
const snowflake = () =>
  String(BigInt(Date.now()) * 1_000_000n + BigInt(Math.floor(Math.random() * 1_000_000)));

/** `/ask text:<text>` in a guild channel (type 0) by user 555 unless told. */
function ask(text: string, more: Record<string, unknown> = {}): Record<string, unknown> {
  const channel = snowflake();
  return {
    id: snowflake(),
    application_id: DISCORD_APPLICATION_ID,
    type: 2,
    token: `interaction-token-${uid()}`,
    version: 1,
    guild_id: "700",
    channel_id: channel,
    channel: { id: channel, type: 0 },
    member: { user: { id: "555", username: "ada" } },
    data: { id: "cmd-1", name: "ask", type: 1, options: [{ name: "text", type: 3, value: text }] },
    ...more,
  };
}

describe("Discord interactions: Ed25519, PING, /ask and message commands", () => {
  it("PING is answered PONG", async () => {
    const pong = await postDiscord("discord-in", {
      id: snowflake(),
      application_id: DISCORD_APPLICATION_ID,
      type: 1,
      version: 1,
    });
    expect(pong.status).toBe(200);
    expect(pong.json).toEqual({ type: 1 });
  });

  it("/ask is deferred at once (type 5) and its run keeps the interaction token for follow-ups", async () => {
    const interaction = ask(`what time is it <@${DISCORD_APPLICATION_ID}> <@556>?`, {
      data: {
        id: "cmd-1",
        name: "ask",
        type: 1,
        options: [{ name: "text", type: 3, value: `<@${DISCORD_APPLICATION_ID}> what time is it, <@556>?` }],
        resolved: { users: { "556": { id: "556", username: "bob" } } },
      },
    });
    const before = Date.now();
    const deferred = await postDiscord("discord-in", interaction);
    expect(deferred.status).toBe(200);
    expect(deferred.json).toEqual({ type: 5 });
    const key = `agent:main:discord-in:channel:${interaction.channel_id}`;
    const [message] = await transcript(key);
    expect(message).toMatchObject({
      content: "what time is it, @bob?",
      provenance: { senderId: "555", senderName: "@ada" },
    });
    const runId = String(message?.runId);
    expect(await waitRun(runId)).toMatchObject({ status: "ok", reply: "Got it: what time is it, @bob?" });
    const target = await runReplyTarget(key, runId);
    expect(target).toMatchObject({
      channel: "discord-in",
      to: interaction.channel_id,
      interaction: { id: interaction.id, token: interaction.token, expiresAt: expect.any(Number) },
    });
    const expiresAt = Number((target?.interaction as { expiresAt?: number } | undefined)?.expiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 15 * 60_000);
    // The token is the run's, never the session's.
    expect(JSON.stringify((await getSession(key)).json)).not.toContain(String(interaction.token));
  });

  it("a bad or missing signature, or a body changed after signing, is 401 and writes nothing", async () => {
    for (const options of [{ tamper: true }, { signature: "00".repeat(64) }, { signature: "" }]) {
      const interaction = ask("hi");
      const refused = await postDiscord("discord-in", interaction, options);
      expect(refused.status).toBe(401);
      expect((await getSession(`agent:main:discord-in:channel:${interaction.channel_id}`)).status).toBe(404);
    }
  });

  it("the same interaction delivered twice is one run", async () => {
    const interaction = ask("once please");
    expect((await postDiscord("discord-in", interaction)).json).toEqual({ type: 5 });
    expect((await postDiscord("discord-in", interaction)).json).toEqual({ type: 5 });
    const key = `agent:main:discord-in:channel:${interaction.channel_id}`;
    const users = (await transcript(key)).filter((message) => message.role === "user");
    expect(users).toHaveLength(1);
    await waitRun(String(users[0]?.runId));
  });

  it("a message command asks about the target message's content, quoting it", async () => {
    const target = snowflake();
    const interaction = ask("", {
      data: {
        id: "cmd-2",
        name: "Ask Switchboard",
        type: 3,
        target_id: target,
        resolved: { messages: { [target]: { id: target, content: "is this right?" } } },
      },
    });
    expect((await postDiscord("discord-in", interaction)).json).toEqual({ type: 5 });
    const key = `agent:main:discord-in:channel:${interaction.channel_id}`;
    const [message] = await transcript(key);
    expect(message).toMatchObject({ content: "is this right?" });
    expect(await runReplyTarget(key, String(message?.runId))).toMatchObject({ replyToMessageId: target });
  });

  it("a DM is direct, a thread is `:thread:` under its parent channel", async () => {
    const dm = snowflake();
    const peer = snowflake();
    const direct = ask("in a DM", {
      guild_id: undefined,
      member: undefined,
      user: { id: peer, username: "cy" },
      channel_id: dm,
      channel: { id: dm, type: 1 },
    });
    await postDiscord("discord-in", direct);
    expect((await transcript(`agent:main:discord-in:direct:${peer}`))[0]).toMatchObject({
      content: "in a DM",
    });
    const thread = snowflake();
    const parent = snowflake();
    await postDiscord(
      "discord-in",
      ask("in a thread", { channel_id: thread, channel: { id: thread, type: 11, parent_id: parent } }),
    );
    expect((await transcript(`agent:main:discord-in:channel:${parent}:thread:${thread}`))[0]).toMatchObject({
      content: "in a thread",
    });
  });

  it("other commands, components and unknown interactions are acknowledged and start nothing", async () => {
    const other = ask("x", { data: { id: "c", name: "settings", type: 1 } });
    const answered = await postDiscord("discord-in", other);
    expect(answered.status).toBe(200);
    expect(answered.json).toMatchObject({ type: 4, data: { flags: 64 } });
    expect((await postDiscord("discord-in", ask("x", { type: 3 }))).json).toEqual({ type: 6 });
    expect((await postDiscord("discord-in", { hello: "world" })).status).toBe(200);
    expect((await getSession(`agent:main:discord-in:channel:${other.channel_id}`)).status).toBe(404);
  });

  it("allowFrom: anyone else is told so, privately, and nothing is written", async () => {
    const stranger = ask("let me in", { member: { user: { id: "999", username: "eve" } } });
    const refused = await postDiscord("discord-allow", stranger);
    expect(refused.json).toMatchObject({ type: 4, data: { flags: 64 } });
    expect((await getSession(`agent:main:discord-allow:channel:${stranger.channel_id}`)).status).toBe(404);
    const friend = ask("hello", { member: { user: { id: "111", username: "al" } } });
    expect((await postDiscord("discord-allow", friend)).json).toEqual({ type: 5 });
  });
});
