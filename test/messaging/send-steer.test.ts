import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { deriveKey } from "../../src/auth/purpose-keys";
import { verifySignatureHeader } from "../../src/channels/signature";
import {
  callTool,
  createSession,
  createSpawned,
  driveUntil,
  modelRequests,
  outboxSize,
  runAlarms,
  runStarted,
  send,
  sendMessage,
  session,
  storedRuns,
  transcript,
  UUID,
  uid,
  waitRun,
  webhookCalls,
} from "../support";
import { sentMessage } from "./fixtures";

const NO_ACTIVE_RUN =
  "Target has no active run that accepts steering. Use mode=followup to start a new turn.";

/** A requester of `agentId` and a target it spawned, whose run (started by `text`) is in flight. */
async function runningTarget(agentId: string, text: string) {
  const u = uid();
  const requester = `agent:${agentId}:st-r-${u}`;
  const target = `agent:${agentId}:st-t-${u}`;
  await createSession({ agentId, key: requester });
  await createSpawned({ sessionKey: target, agentId, spawnedBy: requester });
  const runId = await sendMessage(target, text);
  // The alarm runs the run; not awaited here, since the run is what the test steers into.
  const alarm = runAlarms([target]);
  await runStarted(runId);
  return { u, requester, target, runId, alarm };
}

/** The steered message as the target's transcript holds it: the inter-session user message. */
function steeredMessage(requester: string, text: string, runId: string) {
  return {
    id: expect.stringMatching(/^steer:/),
    role: "user",
    ...sentMessage(requester, text),
    timestamp: expect.any(Number),
    runId,
  };
}

const steeredResult = (runId: string, sessionKey: string) => ({
  runId,
  status: "accepted",
  sessionKey,
  targetDisposition: "steered",
  // No reply flow rides a steer, so no announce step follows it.
  delivery: { status: "skipped", mode: "announce" },
});

describe("sessions_send mode=steer: steering into the active run", () => {
  it("scripted: the run in flight takes the message at its next step, without a restart", async () => {
    const { requester, target, runId, alarm } = await runningTarget("steerable", "wait for steering");
    // timeoutSeconds is forced to 0: the answer is the admission, at once.
    const steered = await send(requester, {
      sessionKey: target,
      message: "turn left",
      mode: "steer",
      timeoutSeconds: 30,
    });
    expect(steered).toEqual(steeredResult(runId, target));
    await alarm;
    expect(await waitRun(runId)).toMatchObject({ status: "ok", reply: "steered: turn left" });
    expect(await transcript(target)).toEqual([
      expect.objectContaining({ role: "user", content: "wait for steering", runId }),
      steeredMessage(requester, "turn left", runId),
      expect.objectContaining({
        role: "assistant",
        content: [{ type: "text", text: "steered: turn left" }],
        runId,
      }),
    ]);
    expect((await storedRuns(target)).map((run) => [run.runId, run.status])).toEqual([[runId, "ok"]]);

    // No run in flight any more: an error naming the target; nothing is appended.
    const again = await send(requester, { sessionKey: target, message: "and right", mode: "steer" });
    expect(again).toEqual({
      runId: expect.stringMatching(UUID),
      status: "error",
      error: NO_ACTIVE_RUN,
      sessionKey: target,
    });
    expect(await transcript(target)).toHaveLength(3);
    // Any other mode is an input error.
    const bad = await callTool("sessions_send", requester, {
      sessionKey: target,
      message: "x",
      mode: "notify",
    });
    expect(bad.status).toBe(400);
  });

  it("openai: the model sees the steered message as a user message before its next round", async () => {
    const { requester, target, runId, alarm } = await runningTarget("model-steer", `start ${uid()}`);
    // The first model round (a tool call) takes 1.5 s: the steer lands during it.
    expect(await send(requester, { sessionKey: target, message: "new direction", mode: "steer" })).toEqual(
      steeredResult(runId, target),
    );
    await alarm;
    const [trigger, steered] = await transcript(target);
    expect(steered).toEqual(steeredMessage(requester, "new direction", runId));
    // The fake model echoes the last user message: the steered one.
    expect(await waitRun(runId)).toMatchObject({ status: "ok", reply: steered?.content });
    const [first, second] = await modelRequests("model-steer", String(trigger?.content));
    expect(first?.messages.at(-1)).toMatchObject({ role: "user", content: trigger?.content });
    expect(second?.messages.slice(-3).map((message) => message.role)).toEqual(["assistant", "tool", "user"]);
    expect(second?.messages.at(-1)).toEqual({ role: "user", content: steered?.content });
    expect((await storedRuns(target)).map((run) => run.runId)).toEqual([runId]);
  });

  it("openai: a message steered in during the run's last model call is answered by a follow-up turn", async () => {
    const { requester, target, runId, alarm } = await runningTarget("model-steer-late", `start ${uid()}`);
    expect(await send(requester, { sessionKey: target, message: "one more thing", mode: "steer" })).toEqual(
      steeredResult(runId, target),
    );
    await alarm;
    // The run answered its own message (the model echoes the last user message it was sent)…
    const [trigger, steered] = await transcript(target);
    expect(await waitRun(runId)).toMatchObject({ status: "ok", reply: trigger?.content });
    // …then a follow-up run took the steered message, with that answer in its history.
    const runs = await driveUntil(
      [target],
      async () => {
        const stored = await storedRuns(target);
        return stored.length === 2 && stored.every((run) => run.status === "ok") ? stored : undefined;
      },
      "the follow-up run",
    );
    expect(runs.map((run) => [run.runId === runId, run.status])).toEqual([
      [true, "ok"],
      [false, "ok"],
    ]);
    expect(runs[1]?.triggerMessageId).toBe(steered?.id);
    const [, followUp] = await modelRequests("model-steer-late", String(trigger?.content));
    expect(followUp?.messages.slice(-3)).toEqual([
      { role: "user", content: trigger?.content },
      { role: "assistant", content: trigger?.content },
      { role: "user", content: steered?.content },
    ]);
  });

  it("webhook: the agent gets a signed steer POST for its deferred run, through the outbox", async () => {
    const u = uid();
    const agentId = "hook-async-rec";
    const requester = `agent:${agentId}:st-r-${u}`;
    const target = `agent:${agentId}:st-t-${u}`;
    await createSession({ agentId, key: requester });
    await createSpawned({ sessionKey: target, agentId, spawnedBy: requester });
    const runId = await sendMessage(target, "long job");
    await driveUntil(
      [target],
      async () => (await storedRuns(target)).find((run) => run.deferred === 1),
      "the deferred run",
    );
    expect(await send(requester, { sessionKey: target, message: "also this", mode: "steer" })).toEqual(
      steeredResult(runId, target),
    );
    const posts = (await webhookCalls(agentId)).filter((post) => post.json.sessionKey === target);
    expect(posts.map((post) => (post.json as { type?: string }).type)).toEqual([undefined, "steer"]);
    const notice = posts[1];
    expect(notice?.json).toEqual({
      type: "steer",
      agentId,
      runId,
      sessionKey: target,
      message: steeredMessage(requester, "also this", runId),
    });
    // Signed as the run POST is: the key derived for this agent.
    const secret = await deriveKey(env.SWITCHBOARD_SIGNING_KEY ?? "", { use: "webhook-agent", agentId });
    const signature = notice?.headers["x-switchboard-signature"];
    expect(await verifySignatureHeader(secret, signature, notice?.body ?? "")).toBe(true);
    expect(await outboxSize(target)).toBe(0);
    // The run goes on: its agent posts the result as usual.
    const done = await session(target).completeDeferredRun(runId, { text: "finished both" });
    expect(done).toMatchObject({ ok: true, value: { status: "ok", reply: "finished both" } });
  });
});
