import { describe, expect, it } from "vitest";
import { withInterSessionHeader } from "../../src/messaging/inter-session";
import {
  answerDeferred,
  createSession,
  createSpawned,
  deliveries,
  driveUntil,
  evict,
  expectOnlyPosts,
  runAlarms,
  send,
  storedRuns,
  turns,
  uid,
} from "../support";

const header = (from: string, channel: string, text: string) =>
  withInterSessionHeader(text, { sessionKey: from, channel, tool: "sessions_send" });

const announceText = (requester: string, request: string, first: string, latest: string) =>
  `Original request (from ${requester}):\n${request}\n\nFirst reply:\n${first}\n\nLatest reply:\n${latest}`;

async function pair(agentId: string, prefix: string) {
  const requester = `agent:${agentId}:${prefix}-r-${uid()}`;
  const group = `${prefix}-${crypto.randomUUID()}`;
  const target = `agent:${agentId}:discord:group:${group}`;
  await createSession({ agentId, key: requester });
  await createSpawned({ sessionKey: target, agentId, spawnedBy: requester });
  return { requester, target, group };
}

async function evictBoth(keys: string[]): Promise<void> {
  for (const key of keys) await evict(key);
  await runAlarms(keys);
}

describe("the reply-back flow survives eviction", () => {
  it("evicting both objects while each step's run is in flight loses and repeats nothing", async () => {
    // hook-async agents answer 202: each run stays in flight until the test posts its result.
    const { requester, target, group } = await pair("hook-async", "dur");
    const both = [requester, target];
    const accepted = await send(requester, {
      sessionKey: target,
      message: "deploy status?",
      timeoutSeconds: 0,
    });
    expect(accepted).toMatchObject({ status: "accepted" });

    const steps: [string, string][] = [
      [target, "answer one"], // the request
      [requester, "answer two"], // reply turn 1
      [target, "answer three"], // reply turn 2
      [target, "the announcement"], // announce step
    ];
    for (const [key, text] of steps) {
      await answerDeferred(key, text, both, () => evictBoth(both));
    }
    const posts = await driveUntil(
      both,
      async () => ((await deliveries(target)).length > 0 ? deliveries(target) : undefined),
      "the announce post",
    );
    expect(posts.map((post) => post.json)).toMatchObject([
      { channel: "discord", to: `group:${group}`, text: "the announcement", sessionKey: target },
    ]);

    expect(await turns(requester)).toEqual([
      ["user", header(target, "discord", "answer one")],
      ["assistant", "answer two"],
    ]);
    expect(await turns(target)).toEqual([
      ["user", header(requester, "unknown", "deploy status?")],
      ["assistant", "answer one"],
      ["user", header(requester, "unknown", "answer two")],
      ["assistant", "answer three"],
      ["user", announceText(requester, "deploy status?", "answer one", "answer three")],
      ["assistant", "the announcement"],
    ]);
    // Each run started once: an in-flight run waits for its agent across restarts instead of re-running.
    for (const key of both) {
      for (const run of await storedRuns(key)) expect(run).toMatchObject({ status: "ok", attempts: 1 });
    }
    expect((await storedRuns(target)).length).toBe(3);
    expect((await storedRuns(requester)).length).toBe(1);
    await expectOnlyPosts(target, ["the announcement"]);
  });

  it("evicting both objects on every round of a running exchange still gives exactly one exchange", async () => {
    const { requester, target, group } = await pair("relay", "chaos");
    const both = [requester, target];
    const result = await send(requester, { sessionKey: target, message: "are we live?", timeoutSeconds: 5 });
    expect(result).toMatchObject({ status: "ok", reply: "relay got: are we live?" });

    const posts = await driveUntil(
      both,
      async () => {
        await evictBoth(both);
        const seen = await deliveries(target);
        const runs = [...(await storedRuns(target)), ...(await storedRuns(requester))];
        const open = runs.some((run) => run.status === "queued" || run.status === "running");
        return seen.length > 0 && !open ? seen : undefined;
      },
      "the exchange to finish",
    );
    const announceRequest = announceText(requester, "are we live?", "relay got: are we live?", "turn reply");
    expect(posts.map((post) => post.json)).toMatchObject([
      { channel: "discord", to: `group:${group}`, text: `Announcement: ${announceRequest}` },
    ]);
    expect(await turns(requester)).toEqual([
      ["user", header(target, "discord", "relay got: are we live?")],
      ["assistant", "turn reply"],
    ]);
    expect(await turns(target)).toEqual([
      ["user", header(requester, "unknown", "are we live?")],
      ["assistant", "relay got: are we live?"],
      ["user", header(requester, "unknown", "turn reply")],
      ["assistant", "turn reply"],
      ["user", announceRequest],
      ["assistant", `Announcement: ${announceRequest}`],
    ]);
    expect((await storedRuns(target)).map((run) => run.status)).toEqual(["ok", "ok", "ok"]);
    expect((await storedRuns(requester)).map((run) => run.status)).toEqual(["ok"]);
    await expectOnlyPosts(target, [`Announcement: ${announceRequest}`]);
  });
});
