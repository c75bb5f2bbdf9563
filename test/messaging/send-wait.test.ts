import { describe, expect, it } from "vitest";
import { stableUuid } from "../../src/messaging/stable-id";
import {
  capturingContext,
  createSession,
  createSpawned,
  drive,
  driveUntil,
  findRun,
  getRun,
  importMessages,
  requesterFor,
  send,
  sendMessage,
  sendWith,
  session,
  storedRuns,
  transcript,
  uid,
  waitRun,
} from "../support";

const DELIVERY = { status: "pending", mode: "announce" };

/** A requester of `agentId` and a child of the same agent (tree visibility lets it send there). */
async function pair(agentId: string, prefix: string) {
  const u = uid();
  const requester = `agent:${agentId}:${prefix}-r-${u}`;
  const target = `agent:${agentId}:${prefix}-t-${u}`;
  await createSession({ agentId, key: requester });
  await createSpawned({ sessionKey: target, agentId, spawnedBy: requester });
  return { u, requester, target };
}

/** A transcript that already ends with an assistant reply. */
async function withEarlierReply(key: string): Promise<void> {
  const now = Date.now() - 1000;
  await importMessages(key, [
    { id: "earlier-q", role: "user", content: "earlier question", timestamp: now },
    { id: "earlier-a", role: "assistant", content: "old answer", timestamp: now + 1 },
  ]);
}

describe("sessions_send with a wait (timeoutSeconds > 0)", () => {
  it("ok: the target's new reply, its runId and the pending announce delivery", async () => {
    const { requester, target } = await pair("relay", "ok");
    await withEarlierReply(target);
    const result = await send(requester, {
      sessionKey: target,
      message: "fresh question",
      timeoutSeconds: 5,
    });
    expect(result).toEqual({
      runId: expect.any(String),
      status: "ok",
      reply: "relay got: fresh question",
      sessionKey: target,
      targetDisposition: "queued",
      delivery: DELIVERY,
    });
    const [earlierQ, earlierA, request, answer] = await transcript(target);
    expect([earlierQ?.id, earlierA?.id]).toEqual(["earlier-q", "earlier-a"]);
    expect(request).toMatchObject({ role: "user", runId: result.runId });
    expect(answer).toMatchObject({
      role: "assistant",
      content: [{ type: "text", text: "relay got: fresh question" }],
      runId: result.runId,
    });
    expect(await getRun(result.runId)).toMatchObject({ status: "ok", sessionKey: target });
    // The reply steps that follow wait at most min(timeoutSeconds, 60 s) each.
    const [run] = await storedRuns(target);
    expect(JSON.parse(run?.flow ?? "{}")).toMatchObject({
      stage: "request",
      stepTimeoutMs: 5000,
      maxTurns: 2,
    });
  });

  it("stale-reply protection: a run that produces no text answers no_reply, not the earlier reply", async () => {
    // hook-async answers 202; the test posts the run's (empty) result itself, while the send waits.
    const { u, requester, target } = await pair("hook-async", "stale");
    await withEarlierReply(target);
    const idempotencyKey = `stale-${u}`;
    const runId = await stableUuid("sessions_send", requester, idempotencyKey);
    const pending = send(requester, {
      sessionKey: target,
      message: "anything new?",
      timeoutSeconds: 20,
      idempotencyKey,
    });
    await driveUntil(
      [target],
      async () => ((await findRun(runId))?.deferred ? true : undefined),
      "deferred run",
    );
    const completed = await session(target).completeDeferredRun(runId, { text: "" });
    expect(completed).toMatchObject({ ok: true, value: { status: "ok" } });
    expect(await pending).toEqual({
      runId,
      status: "no_reply",
      message: "No visible reply. Continue or retry if needed.",
      sessionKey: target,
      targetDisposition: "queued",
      delivery: { status: "skipped", mode: "announce" },
    });
    const stored = await transcript(target);
    expect(stored.slice(0, 3).map((message) => [message.role, message.runId ?? message.id])).toEqual([
      ["user", "earlier-q"],
      ["assistant", "earlier-a"],
      ["user", runId],
    ]);
    expect(
      stored.filter((message) => message.role === "assistant").map((message) => message.content),
    ).toEqual(["old answer"]);
    // no_reply is terminal: no reply-back step, no announce step.
    await drive([target, requester]);
    expect((await storedRuns(target)).map((run) => run.runId)).toEqual([runId]);
    expect(await storedRuns(requester)).toEqual([]);
  });

  it("timeout behind a run in flight: runStatus queued, the message delivered all the same", async () => {
    const { requester, target } = await pair("hook-async", "behind");
    // The target's own run waits on its webhook agent (a 202), so the send's run queues behind it.
    await sendMessage(target, "long job");
    await driveUntil(
      [target],
      async () => (await storedRuns(target)).find((run) => run.deferred === 1),
      "the deferred run",
    );
    const result = await send(requester, { sessionKey: target, message: "when you can", timeoutSeconds: 1 });
    expect(result).toMatchObject({
      status: "timeout",
      sessionKey: target,
      sentBeforeError: true,
      runStatus: "queued",
    });
    expect((await getRun(result.runId))?.status).toBe("queued");
    expect((await transcript(target)).map((message) => message.runId)).toContain(result.runId);
  });

  it("timeout: the run continues; waiting again by runId gets its result", async () => {
    const { requester, target } = await pair("model-slow", "slow");
    const result = await send(requester, {
      sessionKey: target,
      message: "take your time",
      timeoutSeconds: 1,
    });
    expect(result).toEqual({
      runId: expect.any(String),
      status: "timeout",
      error: `No reply within 1s; the run continues. Wait again with POST /v1/runs/${result.runId}/wait, or read sessions_history later.`,
      sessionKey: target,
      sentBeforeError: true,
      runStatus: "running",
    });
    expect((await getRun(result.runId))?.status).toBe("running");
    const waited = await waitRun(result.runId, 10_000);
    const [request] = await transcript(target);
    expect(waited).toEqual({
      runId: result.runId,
      status: "ok",
      runStatus: "ok",
      // The fake model echoes the last user message: the routed message, header included.
      reply: request?.content,
      startedAt: expect.any(Number),
      endedAt: expect.any(Number),
    });
    expect(String(waited.reply).endsWith("\n\ntake your time")).toBe(true);
    // The exchange goes on: the requester's reply step, cut by its 1 s step timeout (timeoutSeconds: 1).
    const step = await driveUntil(
      [requester],
      async () =>
        (await storedRuns(requester)).find((run) => run.status !== "queued" && run.status !== "running"),
      "the requester's reply step",
    );
    expect(step).toMatchObject({ status: "timeout", error: "run timed out after 1s" });
  });

  it("error: the runtime's failure, HTTP status included, is the result's error", async () => {
    const { requester, target } = await pair("model-500", "fail");
    const result = await send(requester, { sessionKey: target, message: "please fail", timeoutSeconds: 10 });
    const run = await getRun(result.runId);
    expect(run.status).toBe("error");
    expect(result).toEqual({
      runId: run.runId,
      status: "error",
      error: run.error,
      sessionKey: target,
      sentBeforeError: true,
    });
    expect(result.error).toMatch(/HTTP 500/);
    expect(result.error).toContain("fake model status 500");
  });

  it("idempotencyKey: a repeat returns the first result and sends nothing; another key sends again", async () => {
    const { u, requester, target } = await pair("relay", "idem");
    const args = { sessionKey: target, message: "only once", timeoutSeconds: 5, idempotencyKey: `once-${u}` };
    const first = await send(requester, args);
    expect(first).toEqual({
      runId: await stableUuid("sessions_send", requester, `once-${u}`),
      status: "ok",
      reply: "relay got: only once",
      sessionKey: target,
      targetDisposition: "queued",
      delivery: DELIVERY,
    });
    expect(await send(requester, args)).toEqual(first);
    // Fire-and-forget repeats, to the same or another target: the first send's answer, nothing queued.
    const otherTarget = `agent:relay:idem-t2-${u}`;
    await createSpawned({ sessionKey: otherTarget, agentId: "relay", spawnedBy: requester });
    const { ctx, queued } = capturingContext(requesterFor(requester));
    for (const sessionKey of [target, otherTarget]) {
      expect(await sendWith(ctx, { ...args, sessionKey, timeoutSeconds: 0 })).toEqual({
        runId: first.runId,
        status: "accepted",
        sessionKey: target,
        targetDisposition: "queued",
        delivery: DELIVERY,
      });
    }
    expect(queued).toEqual([]);
    // Waiting, to another target: still the first result, and nothing sent there.
    expect(await send(requester, { ...args, sessionKey: otherTarget })).toEqual(first);
    expect(await transcript(otherTarget)).toEqual([]);
    expect((await getRun(first.runId)).sessionKey).toBe(target);

    const requests = async () =>
      (await storedRuns(target)).filter((run) => JSON.parse(run.flow ?? "{}").stage === "request");
    const sentOnce = async () =>
      (await transcript(target)).filter((message) => String(message.content).endsWith("\n\nonly once"));
    expect((await requests()).map((run) => run.runId)).toEqual([first.runId]);
    expect(await sentOnce()).toHaveLength(1);

    const other = await send(requester, { ...args, idempotencyKey: `twice-${u}` });
    expect(other.runId).not.toBe(first.runId);
    expect(await sentOnce()).toHaveLength(2);
  });
});

describe("sessions_send delivery with a sub-agent on one side", () => {
  it("a sub-agent target: delivery skipped, and the exchange ends without an announce step", async () => {
    const u = uid();
    const requester = `agent:relay:sd-r-${u}`;
    const child = `agent:relay:subagent:sd-c-${u}`;
    await createSession({ agentId: "relay", key: requester });
    await createSpawned({ sessionKey: child, agentId: "relay", spawnedBy: requester, spawnDepth: 1 });
    const result = await send(requester, { sessionKey: child, message: "hi", timeoutSeconds: 5 });
    expect(result).toEqual({
      runId: expect.any(String),
      status: "ok",
      reply: "relay got: hi",
      sessionKey: child,
      targetDisposition: "queued",
      delivery: { status: "skipped", mode: "announce" },
    });
    // Both reply-back turns happen (maxPingPongTurns 2); then nothing more.
    const stages = async (key: string) =>
      (await storedRuns(key)).map((run) => [JSON.parse(run.flow ?? "{}").stage, run.status]);
    await driveUntil(
      [requester, child],
      async () => ((await stages(child)).length === 2 ? true : undefined),
      "ping 2",
    );
    await drive([requester, child]);
    expect(await stages(child)).toEqual([
      ["request", "ok"],
      ["ping", "ok"],
    ]);
    expect(await stages(requester)).toEqual([["ping", "ok"]]);
  });
});
