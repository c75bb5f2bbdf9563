import { evictDurableObject, runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sessionApi } from "../../../src/session/client";
import {
  ADMIN,
  call,
  callsArrived,
  createSession,
  deferredRun,
  ended,
  getRun,
  modelCalls,
  sendMessage,
  sessionPath,
  stub,
  turns,
  uid,
  waitRun,
} from "../../support";

const modelError = (status: number) =>
  `model API answered HTTP ${status}: {"error":{"message":"fake model status ${status}"}}`;

/** The model requests a recorded agent got for one message text. */
async function requestsFor(agentId: string, text: string) {
  return (await modelCalls(agentId)).filter((request) =>
    request.json?.messages?.some((message) => message.content === text),
  );
}

/**
 * Queues a turn with its own run timeout through the session object's RPC, as the reply steps of
 * sessions_send do: the REST chat.send has no timeout field, so its runs get DEFAULT_RUN_TIMEOUT_MS.
 */
async function enqueueWithTimeout(key: string, text: string, timeoutMs: number): Promise<string> {
  const runId = crypto.randomUUID();
  const queued = await sessionApi(env.SESSION, key).enqueueTurn({
    runId,
    message: { text, provenance: { kind: "external_user" } },
    timeoutMs,
  });
  expect(queued).toEqual({ ok: true, value: { runId, status: "queued", duplicate: false } });
  return runId;
}

describe("runtime faults end the run as error, after bounded retries recorded on the run", () => {
  it("HTTP 500: two retries, then error with the status and body excerpt", async () => {
    const key = `agent:model-500:f-${uid()}`;
    await createSession({ agentId: "model-500", key });
    const runId = await sendMessage(key, "will fail");
    expect(await waitRun(runId)).toMatchObject({
      status: "error",
      runStatus: "error",
      error: modelError(500),
    });
    const run = await getRun(runId);
    expect(run).toMatchObject({
      status: "error",
      error: modelError(500),
      attempts: 1,
      retries: [`attempt 1 failed: ${modelError(500)}`, `attempt 2 failed: ${modelError(500)}`],
    });
    expect(run.reply).toBeUndefined();
    expect(await turns(key)).toEqual([["user", "will fail"]]);
    const row = await call("GET", sessionPath(key), { token: ADMIN });
    expect(row.json).toMatchObject({ status: "failed", abortedLastRun: false });
  });

  it("HTTP 429: the model is called exactly three times, then error", async () => {
    const key = `agent:model-429-rec:f-${uid()}`;
    await createSession({ agentId: "model-429-rec", key });
    const text = `rate limited ${uid()}`;
    const runId = await sendMessage(key, text);
    expect((await waitRun(runId)).error).toBe(modelError(429));
    expect((await getRun(runId)).retries).toEqual([
      `attempt 1 failed: ${modelError(429)}`,
      `attempt 2 failed: ${modelError(429)}`,
    ]);
    expect(await requestsFor("model-429-rec", text)).toHaveLength(3);
  });

  it("a malformed completion is not retried", async () => {
    const key = `agent:model-malformed:f-${uid()}`;
    await createSession({ agentId: "model-malformed", key });
    const runId = await sendMessage(key, "garbage please");
    await waitRun(runId);
    expect(await getRun(runId)).toMatchObject({
      status: "error",
      error: "model API answered a malformed completion",
      attempts: 1,
      retries: [],
    });
    expect(await turns(key)).toEqual([["user", "garbage please"]]);
  });

  it("a run past its timeout is aborted and ends as timeout, with nothing written", async () => {
    const key = `agent:model-slow:f-${uid()}`;
    await createSession({ agentId: "model-slow", key });
    const runId = await enqueueWithTimeout(key, "too slow", 1000);
    const waited = await waitRun(runId);
    expect(waited).toMatchObject({
      status: "timeout",
      runStatus: "timeout",
      error: "run timed out after 1s",
    });
    const run = ended(await getRun(runId));
    expect(run).toMatchObject({ status: "timeout", attempts: 1, retries: [] });
    // Ended by the timeout (1 s), not by the model's 3 s answer.
    expect(run.endedAt - run.startedAt).toBeGreaterThanOrEqual(1000);
    expect(run.endedAt - run.startedAt).toBeLessThan(2500);
    const row = await call("GET", sessionPath(key), { token: ADMIN });
    expect(row.json).toMatchObject({ status: "timeout", abortedLastRun: true });
    expect(await turns(key)).toEqual([["user", "too slow"]]);
  });

  it("a deferred run nobody answers ends at its deadline, by the object's alarm", async () => {
    const key = `agent:hook-async-rec:f-${uid()}`;
    await createSession({ agentId: "hook-async-rec", key });
    const runId = await enqueueWithTimeout(key, "never answered", 1000);
    await deferredRun(key, runId);
    // The instance that started it goes away; the deadline lives in SQLite and the alarm.
    await evictDurableObject(stub(key));
    expect(await waitRun(runId)).toMatchObject({
      status: "timeout",
      runStatus: "timeout",
      error: "run timed out after 1s",
    });
    expect(await getRun(runId)).toMatchObject({ status: "timeout", deferred: false, attempts: 1 });
  });
});

describe("eviction while a run executes", () => {
  it("waits for the run in flight: it ends ok once, and nothing is left due", async () => {
    const key = `agent:model-slow-rec:evict-${uid()}`;
    await createSession({ agentId: "model-slow-rec", key });
    const text = `evict me ${uid()}`;
    const runId = await sendMessage(key, text);
    // Running once its model got the call (the fake service's signal).
    await callsArrived("model-slow-rec", 1, text);
    // workerd drains the in-flight alarm (the model call) before it tears the instance down.
    await evictDurableObject(stub(key));
    expect(await getRun(runId)).toMatchObject({ status: "ok", reply: text, attempts: 1, retries: [] });
    expect(await runDurableObjectAlarm(stub(key))).toBe(false);
    expect(await turns(key)).toEqual([
      ["user", text],
      ["assistant", text],
    ]);
    expect(await requestsFor("model-slow-rec", text)).toHaveLength(1);
  });
});
