import { describe, expect, it } from "vitest";
import {
  ADMIN,
  answerDeferred,
  call,
  capturingContext,
  createSession,
  createSpawned,
  expectOnlyPosts,
  requesterFor,
  send,
  sendWith,
  sessionPath,
  storedRuns,
  transcript,
  turns,
  UUID,
  uid,
} from "../support";

const BLOCKED = "send blocked by session policy";

/** The result of a send that the policy blocks, in both modes; nothing reaches the target or the queue. */
async function expectBlocked(requester: string, target: string): Promise<void> {
  for (const timeoutSeconds of [0, 5]) {
    const { ctx, queued } = capturingContext(requesterFor(requester));
    expect(await sendWith(ctx, { sessionKey: target, message: "hello", timeoutSeconds })).toEqual({
      runId: expect.stringMatching(UUID),
      status: "error",
      error: BLOCKED,
      sessionKey: target,
    });
    expect(queued).toEqual([]);
  }
  expect(await send(requester, { sessionKey: target, message: "hello" })).toEqual({
    runId: expect.stringMatching(UUID),
    status: "error",
    error: BLOCKED,
    sessionKey: target,
  });
  expect(await transcript(target)).toEqual([]);
  expect(await storedRuns(target)).toEqual([]);
}

/** A send the policy lets through: the target answers. */
async function expectDelivered(requester: string, target: string, reply: string): Promise<void> {
  expect(await send(requester, { sessionKey: target, message: "ping", timeoutSeconds: 5 })).toMatchObject({
    status: "ok",
    reply,
    sessionKey: target,
  });
}

async function patchPolicy(key: string, sendPolicy: "allow" | "deny" | null): Promise<void> {
  const patched = await call("PATCH", sessionPath(key), { token: ADMIN, body: { sendPolicy } });
  expect(patched.status, patched.text).toBe(200);
}

async function spawnedBy(requester: string, agentId: string, ...keys: string[]): Promise<void> {
  for (const key of keys) await createSpawned({ sessionKey: key, agentId, spawnedBy: requester });
}

describe("send policy on sessions_send (SPEC §6, test config rules)", () => {
  it("channel + chatType rule: a discord channel is denied; a discord group and a slack channel are not", async () => {
    const u = uid();
    const requester = `agent:main:sp-r-${u}`;
    await createSession({ agentId: "main", key: requester });
    const discordChannel = `agent:main:discord:channel:news-${u}`;
    const discordGroup = `agent:main:discord:group:news-${u}`;
    const slackChannel = `agent:main:slack:channel:news-${u}`;
    await spawnedBy(requester, "main", discordChannel, discordGroup, slackChannel);
    await expectBlocked(requester, discordChannel);
    await expectDelivered(requester, discordGroup, "pong");
    await expectDelivered(requester, slackChannel, "pong");
  });

  it("keyPrefix rule matches the key without its agent prefix", async () => {
    const u = uid();
    const requester = `agent:main:kp-r-${u}`;
    await createSession({ agentId: "main", key: requester });
    const quietCron = `agent:main:cron:quiet-${u}`;
    const loudCron = `agent:main:cron:loud-${u}`;
    await spawnedBy(requester, "main", quietCron, loudCron);
    await expectBlocked(requester, quietCron);
    await expectDelivered(requester, loudCron, "pong");
  });

  it("rawKeyPrefix rule matches the canonical key, agent included", async () => {
    const u = uid();
    const relay = `agent:relay:rk-r-${u}`;
    const main = `agent:main:rk-r-${u}`;
    await createSession({ agentId: "relay", key: relay });
    await createSession({ agentId: "main", key: main });
    const relayHook = `agent:relay:hook:${crypto.randomUUID()}`;
    const mainHook = `agent:main:hook:${crypto.randomUUID()}`;
    await spawnedBy(relay, "relay", relayHook);
    await spawnedBy(main, "main", mainHook);
    await expectBlocked(relay, relayHook);
    await expectDelivered(main, mainHook, "pong");
  });

  it("the session's own override wins both ways, and clearing it inherits the rules again", async () => {
    const u = uid();
    const requester = `agent:main:ov-r-${u}`;
    await createSession({ agentId: "main", key: requester });
    const denied = `agent:main:discord:channel:ov-${u}`;
    const allowed = `agent:main:discord:group:ov-${u}`;
    await spawnedBy(requester, "main", denied, allowed);

    await patchPolicy(denied, "allow");
    await expectDelivered(requester, denied, "pong");
    await patchPolicy(allowed, "deny");
    await expectBlocked(requester, allowed);

    await patchPolicy(denied, null);
    await patchPolicy(allowed, null);
    expect(await send(requester, { sessionKey: denied, message: "ping", timeoutSeconds: 0 })).toMatchObject({
      status: "error",
      error: BLOCKED,
    });
    await expectDelivered(requester, allowed, "pong");
  });

  it("the policy is checked before the self-send check (thread before policy: send-checks)", async () => {
    const u = uid();
    const requester = `agent:main:discord:channel:order-${u}`;
    await createSession({ agentId: "main", key: requester });
    // Sending to itself and waiting would be refused too, but the policy answers first.
    expect(await send(requester, { sessionKey: "current", message: "hi", timeoutSeconds: 5 })).toEqual({
      runId: expect.stringMatching(UUID),
      status: "error",
      error: BLOCKED,
      sessionKey: requester,
    });
    await patchPolicy(requester, "allow");
    expect(await send(requester, { sessionKey: "current", message: "hi", timeoutSeconds: 5 })).toMatchObject({
      status: "error",
      error: "A session cannot send to itself and wait for the reply; use timeoutSeconds: 0.",
    });
  });

  it("also holds back the announce post: a deny set while the exchange runs keeps the channel silent", async () => {
    const u = uid();
    const requester = `agent:hook-async:mute-r-${u}`;
    const target = `agent:hook-async:discord:group:mute-${crypto.randomUUID()}`;
    await createSession({ agentId: "hook-async", key: requester });
    await createSpawned({ sessionKey: target, agentId: "hook-async", spawnedBy: requester });
    const both = [requester, target];
    await send(requester, { sessionKey: target, message: "quiet please", timeoutSeconds: 0 });
    await answerDeferred(target, "first answer", both);
    await answerDeferred(requester, "REPLY_SKIP", both);
    await answerDeferred(target, "would be posted", both, () => patchPolicy(target, "deny"));
    expect((await turns(target)).at(-1)).toEqual(["assistant", "would be posted"]);
    await expectOnlyPosts(target, []);
  });
});
