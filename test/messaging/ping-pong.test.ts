import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { deriveKey } from "../../src/auth/purpose-keys";
import { verifySignatureHeader } from "../../src/channels/signature";
import { agentToAgentContext } from "../../src/messaging/a2a-context";
import { withInterSessionHeader } from "../../src/messaging/inter-session";
import {
  type ChannelPost,
  createSession,
  createSpawned,
  delivered,
  driveUntil,
  expectOnlyPosts,
  getRun,
  type RecordedRequest,
  send,
  storedRuns,
  transcript,
  turns,
  uid,
} from "../support";

const header = (from: string, channel: string, text: string) =>
  withInterSessionHeader(text, { sessionKey: from, channel, tool: "sessions_send" });

const fromSession = (key: string, channel: string, hop?: number) => ({
  kind: "inter_session",
  sourceSessionKey: key,
  sourceChannel: channel,
  sourceTool: "sessions_send",
  ...(hop === undefined ? {} : { hop }),
});

const announceText = (requester: string, request: string, first: string, latest: string) =>
  `Original request (from ${requester}):\n${request}\n\nFirst reply:\n${first}\n\nLatest reply:\n${latest}`;

/** The post's body fields, after checking it is signed with the service's key over its exact bytes. */
async function signedBody(post: RecordedRequest<ChannelPost> | undefined): Promise<ChannelPost> {
  if (!post) throw new Error("no post");
  expect(post.headers["x-switchboard-signature"]).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
  expect(
    await verifySignatureHeader(
      await deriveKey(env.SWITCHBOARD_SIGNING_KEY ?? "", {
        use: "channel",
        channel: String(post.json.channel),
      }),
      post.headers["x-switchboard-signature"],
      post.body,
    ),
  ).toBe(true);
  expect(post.headers["idempotency-key"]).toBe(post.json.idempotencyKey);
  return post.json;
}

/** Waits until every run of these sessions has ended and nothing more is queued, then counts them. */
async function settledRuns(keys: string[], expected: number): Promise<void> {
  await driveUntil(
    keys,
    async () => {
      const runs = (await Promise.all(keys.map(storedRuns))).flat();
      const open = runs.some((run) => run.status === "queued" || run.status === "running");
      return !open && runs.length >= expected ? runs : undefined;
    },
    `${expected} ended runs`,
  );
}

describe("reply-back loop and announce (maxPingPongTurns 2)", () => {
  it("two reply turns (requester, then target), then the target announces to its discord group", async () => {
    const u = uid();
    const requester = `agent:relay:pp-r-${u}`;
    const group = `dev-${crypto.randomUUID()}`;
    const target = `agent:relay:discord:group:${group}`;
    await createSession({ agentId: "relay", key: requester });
    await createSpawned({ sessionKey: target, agentId: "relay", spawnedBy: requester });

    const result = await send(requester, {
      sessionKey: target,
      message: "status of the build?",
      timeoutSeconds: 5,
    });
    expect(result).toMatchObject({ status: "ok", reply: "relay got: status of the build?" });
    const posts = await delivered(target, 1, [requester, target]);
    await settledRuns([requester, target], 4);

    // The requester took turn 1 (a reply to the target's answer); nothing else.
    expect(await transcript(requester)).toMatchObject([
      {
        role: "user",
        content: header(target, "discord", "relay got: status of the build?"),
        provenance: fromSession(target, "discord", 1),
      },
      { role: "assistant", content: [{ type: "text", text: "turn reply" }] },
    ]);
    expect(await turns(requester)).toHaveLength(2);

    // The target: the request, turn 2, the announce step; each answered once.
    const announceRequest = announceText(
      requester,
      "status of the build?",
      "relay got: status of the build?",
      "turn reply",
    );
    const announcement = `Announcement: ${announceRequest}`;
    expect(await transcript(target)).toMatchObject([
      { role: "user", content: header(requester, "unknown", "status of the build?"), runId: result.runId },
      { role: "assistant", content: [{ type: "text", text: "relay got: status of the build?" }] },
      {
        role: "user",
        content: header(requester, "unknown", "turn reply"),
        provenance: fromSession(requester, "unknown", 1),
      },
      { role: "assistant", content: [{ type: "text", text: "turn reply" }] },
      {
        role: "user",
        content: announceRequest,
        provenance: {
          kind: "inter_session",
          sourceSessionKey: requester,
          sourceTool: "sessions_send",
          hop: 1,
        },
      },
      { role: "assistant", content: [{ type: "text", text: announcement }] },
    ]);
    expect(await turns(target)).toHaveLength(6);
    expect((await transcript(target))[0]?.provenance).toEqual(fromSession(requester, "unknown", 1));

    // Exactly one post: the announce, to the target's announce target, signed.
    expect(posts).toHaveLength(1);
    const targetRuns = await storedRuns(target);
    const announceRun = targetRuns[2]?.runId;
    expect(await signedBody(posts[0])).toEqual({
      channel: "discord",
      to: `group:${group}`,
      text: announcement,
      sessionKey: target,
      runId: announceRun,
      idempotencyKey: `${announceRun}:announce`,
    });

    // What each run's runtime was handed as context: the a2a roles, then the reply steps, then announce.
    const requesterRuns = await storedRuns(requester);
    expect(targetRuns.map((run) => run.status)).toEqual(["ok", "ok", "ok"]);
    expect(requesterRuns.map((run) => run.status)).toEqual(["ok"]);
    expect(targetRuns[0]?.context).toBe(
      agentToAgentContext(
        { agentId: "relay", sessionKey: requester, channel: "unknown" },
        { agentId: "relay", sessionKey: target, channel: "discord" },
      ),
    );
    expect(requesterRuns[0]?.context).toContain("reply step 1 of at most 2");
    expect(targetRuns[1]?.context).toContain("reply step 2 of at most 2");
    expect(targetRuns[2]?.context).toContain("ANNOUNCE_SKIP");
    // relay answers "turn reply" and "Announcement: …" only when its context says so: the runtime saw it.
    await expectOnlyPosts(target, [announcement]);
  });

  it("the target's runtime is handed the agent-to-agent context, not just the message", async () => {
    // relay's scripted rules read the context as well as the message. Only the context names the
    // target's own channel, so a channel called "announce step" makes relay pick its announce rule.
    const u = uid();
    const requester = `agent:relay:ctx-r-${u}`;
    const target = `agent:relay:ctx-t-${u}`;
    await createSession({ agentId: "relay", key: requester });
    await createSpawned({
      sessionKey: target,
      agentId: "relay",
      spawnedBy: requester,
      channel: "announce step",
    });
    const result = await send(requester, { sessionKey: target, message: "hello", timeoutSeconds: 5 });
    expect(result).toMatchObject({ status: "ok", reply: "Announcement: hello" });
    const [request] = await transcript(target);
    expect(String(request?.content)).not.toContain("announce step");
  });

  it("REPLY_SKIP stops the exchange early; ANNOUNCE_SKIP posts nothing", async () => {
    const u = uid();
    const requester = `agent:quiet:q-r-${u}`;
    const target = `agent:quiet:discord:group:q-${crypto.randomUUID()}`;
    await createSession({ agentId: "quiet", key: requester });
    await createSpawned({ sessionKey: target, agentId: "quiet", spawnedBy: requester });

    expect(
      await send(requester, { sessionKey: target, message: "anyone there?", timeoutSeconds: 5 }),
    ).toMatchObject({
      status: "ok",
      reply: "quiet got: anyone there?",
    });
    await settledRuns([requester, target], 3);
    expect(await turns(requester)).toEqual([
      ["user", header(target, "discord", "quiet got: anyone there?")],
      ["assistant", "REPLY_SKIP"],
    ]);
    expect(await turns(target)).toEqual([
      ["user", header(requester, "unknown", "anyone there?")],
      ["assistant", "quiet got: anyone there?"],
      [
        "user",
        announceText(requester, "anyone there?", "quiet got: anyone there?", "quiet got: anyone there?"),
      ],
      ["assistant", "ANNOUNCE_SKIP"],
    ]);
    await expectOnlyPosts(target, []);
  });

  it("a fire-and-forget self-send has no ping-pong: the session announces to its own channel", async () => {
    const group = `self-${crypto.randomUUID()}`;
    const key = `agent:relay:discord:group:${group}`;
    await createSession({ agentId: "relay", key });
    const result = await send(key, { sessionKey: "current", message: "note to self", timeoutSeconds: 0 });
    expect(result).toMatchObject({ status: "accepted", sessionKey: key });
    const posts = await delivered(key, 1, [key]);
    await settledRuns([key], 2);
    const announceRequest = announceText(
      key,
      "note to self",
      "relay got: note to self",
      "relay got: note to self",
    );
    expect(await turns(key)).toEqual([
      ["user", header(key, "discord", "note to self")],
      ["assistant", "relay got: note to self"],
      ["user", announceRequest],
      ["assistant", `Announcement: ${announceRequest}`],
    ]);
    expect(posts).toHaveLength(1);
    expect(await signedBody(posts[0])).toMatchObject({
      channel: "discord",
      to: `group:${group}`,
      sessionKey: key,
    });
    expect((await getRun(result.runId))?.status).toBe("ok");
  });

  it("a target without a channel key announces to its delivery context, Telegram topic thread included", async () => {
    const u = uid();
    const requester = `agent:relay:tg-r-${u}`;
    const target = `agent:relay:tg-t-${u}`;
    const chatId = `-100${Date.now()}`;
    await createSession({ agentId: "relay", key: requester });
    await createSpawned({
      sessionKey: target,
      agentId: "relay",
      spawnedBy: requester,
      deliveryContext: { channel: "telegram", to: chatId, threadId: "99" },
    });
    await send(requester, { sessionKey: target, message: "topic news", timeoutSeconds: 5 });
    const posts = await delivered(target, 1, [requester, target]);
    expect(posts).toHaveLength(1);
    const body = await signedBody(posts[0]);
    expect(body).toMatchObject({ channel: "telegram", to: chatId, threadId: "99", sessionKey: target });
    expect(String(body.text)).toMatch(/^Announcement: Original request/);
  });
});
