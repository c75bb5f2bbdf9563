import { describe, expect, it } from "vitest";
import {
  ADMIN,
  AGENT_TOKENS,
  type ApiError,
  call,
  createSession,
  deferredRun,
  getRun,
  type RunRecord,
  type RunWaitResult,
  sendMessage,
  turns,
  uid,
  waitRun,
} from "../../support";

/** Starts a hook-async-rec run in a new session; returns it once the webhook answered 202. */
async function startDeferred(label: string) {
  const key = `agent:hook-async-rec:${label}-${uid()}`;
  await createSession({ agentId: "hook-async-rec", key });
  const runId = await sendMessage(key, `async job ${label}`);
  const { runToken } = await deferredRun(key, runId);
  return { key, runId, run: await getRun(runId), runToken };
}

/** `POST /v1/runs/{runId}/result`, as a webhook agent posts it; `Body` is the answer expected. */
const postResult = <Body = RunWaitResult>(runId: string, token: string, body: unknown = { text: "done" }) =>
  call<Body>("POST", `/v1/runs/${runId}/result`, { token, body });

describe("webhook runtime, deferred answer (hook-async-rec: 202, then POST /v1/runs/{runId}/result)", () => {
  it("stays running until its own run token posts the result; waiting again after a timeout works", async () => {
    const a = await startDeferred("a");
    const b = await startDeferred("b");
    expect(a.run).toMatchObject({ status: "running", deferred: true, attempts: 1, retries: [] });
    expect(a.run.endedAt).toBeUndefined();

    const timedOut = await waitRun(a.runId, 50);
    expect(timedOut).toEqual({
      runId: a.runId,
      status: "timeout",
      runStatus: "running",
      error: "the run has not ended yet; wait again",
      startedAt: a.run.startedAt,
    });
    // The session is busy with the deferred run: a new message waits its turn.
    const queued = await sendMessage(a.key, "next one");
    expect((await getRun(queued)).status).toBe("queued");

    // Only the run's own token may post its result.
    expect((await postResult(a.runId, b.runToken)).status).toBe(403);
    expect((await postResult(a.runId, ADMIN)).status).toBe(403);
    expect((await postResult(a.runId, AGENT_TOKENS.main)).status).toBe(403);
    expect((await postResult(a.runId, "not-a-token")).status).toBe(401);
    const bad = await postResult<ApiError>(a.runId, a.runToken, { usage: { input: 1 } });
    expect(bad.status).toBe(400);
    expect(bad.json.error.message).toMatch(/^text/);
    expect((await getRun(a.runId)).status).toBe("running");

    // Wait again, and complete the run while that wait is pending.
    const waiting = waitRun(a.runId, 10_000);
    const posted = await postResult(a.runId, a.runToken, {
      text: "async done",
      usage: { input: 3, output: 4 },
    });
    expect(posted.status, posted.text).toBe(200);
    const ended = {
      runId: a.runId,
      status: "ok",
      runStatus: "ok",
      reply: "async done",
      startedAt: a.run.startedAt,
      endedAt: expect.any(Number),
    };
    expect(posted.json).toEqual(ended);
    expect(await waiting).toEqual(ended);
    expect(await getRun(a.runId)).toMatchObject({
      status: "ok",
      deferred: false,
      usage: { input: 3, output: 4, total: 7 },
      reply: "async done",
    });
    // A repeated post changes nothing.
    expect((await postResult(a.runId, a.runToken, { text: "second answer" })).json).toEqual(posted.json);

    // The queued message runs now, again deferred.
    await deferredRun(a.key, queued);
    // The transcript is in arrival order: the answer came after the next message was queued.
    expect(await turns(a.key)).toEqual([
      ["user", "async job a"],
      ["user", "next one"],
      ["assistant", "async done"],
    ]);
    // b is untouched by all of this.
    expect((await getRun(b.runId)).status).toBe("running");
  });
});

describe("who may read and wait on a run (/v1/runs)", () => {
  it("operator: any run; run token: its own run only; agent token: its own agent's runs only", async () => {
    const a = await startDeferred("acl-a");
    const b = await startDeferred("acl-b");
    const mainKey = `agent:main:acl-${uid()}`;
    await createSession({ agentId: "main", key: mainKey });
    const mainRun = await sendMessage(mainKey, "ping");

    const get = <Body = RunRecord>(runId: string, token?: string) =>
      call<Body>("GET", `/v1/runs/${runId}`, token ? { token } : {});
    const wait = (runId: string, token: string) =>
      call<RunWaitResult>("POST", `/v1/runs/${runId}/wait`, { token, body: { timeoutMs: 0 } });

    expect((await get(a.runId, ADMIN)).status).toBe(200);
    expect((await get(a.runId, a.runToken)).json).toMatchObject({ runId: a.runId, sessionKey: a.key });
    expect((await wait(a.runId, a.runToken)).json).toMatchObject({ status: "timeout", runStatus: "running" });
    const foreign = await get<ApiError>(b.runId, a.runToken);
    expect(foreign.status).toBe(403);
    expect(foreign.json.error.message).toBe("a run token reaches only its own run");
    expect((await wait(b.runId, a.runToken)).status).toBe(403);
    expect((await get(mainRun, a.runToken)).status).toBe(403);

    expect((await get(mainRun, AGENT_TOKENS.main)).status).toBe(200);
    expect((await wait(mainRun, AGENT_TOKENS.main)).json.status).toMatch(/^(ok|timeout)$/);
    const otherAgent = await get<ApiError>(a.runId, AGENT_TOKENS.main);
    expect(otherAgent.status).toBe(403);
    expect(otherAgent.json.error.message).toBe('an agent token for "main" reaches only that agent\'s runs');
    expect((await get(mainRun, AGENT_TOKENS.research)).status).toBe(403);
    expect((await wait(mainRun, AGENT_TOKENS.research)).status).toBe(403);

    expect((await get(mainRun)).status).toBe(401);
    expect((await get(mainRun, "wrong-token")).status).toBe(401);
    // An unknown run is 404 for anyone who gets that far.
    expect((await get(crypto.randomUUID(), ADMIN)).status).toBe(404);

    // Tidy up: both deferred runs end, each by its own token.
    expect((await postResult(a.runId, a.runToken)).json.status).toBe("ok");
    expect((await postResult(b.runId, b.runToken)).json.status).toBe("ok");
  });
});
