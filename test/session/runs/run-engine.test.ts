import { describe, expect, it } from "vitest";
import {
  ADMIN,
  AGENT_TOKENS,
  type ApiError,
  assistantText,
  call,
  createSession,
  ended,
  getRun,
  sendMessage,
  sessionPath,
  transcript,
  turns,
  uid,
  waitRun,
} from "../../support";

describe("POST /v1/sessions/{key}/messages (chat.send)", () => {
  it("accepts with 202 {runId, status: accepted}; the run ends ok with usage, reply and timestamps", async () => {
    const key = `agent:main:run-${uid()}`;
    await createSession({ agentId: "main", key });
    const before = Date.now();
    const runId = await sendMessage(key, "ping");
    expect(await waitRun(runId)).toEqual({
      runId,
      status: "ok",
      runStatus: "ok",
      reply: "pong",
      startedAt: expect.any(Number),
      endedAt: expect.any(Number),
    });
    const run = ended(await getRun(runId));
    // Scripted usage: ceil(chars / 4) each way.
    expect(run).toEqual({
      runId,
      sessionKey: key,
      status: "ok",
      deferred: false,
      createdAt: expect.any(Number),
      startedAt: expect.any(Number),
      endedAt: expect.any(Number),
      usage: { input: 1, output: 1, total: 2 },
      // Who answered: a scripted agent's shown model, its runtime type as the provider.
      model: "scripted/echo",
      provider: "scripted",
      reply: "pong",
      attempts: 1,
      retries: [],
    });
    expect(before).toBeLessThanOrEqual(run.createdAt);
    expect(run.createdAt).toBeLessThanOrEqual(run.startedAt);
    expect(run.startedAt).toBeLessThanOrEqual(run.endedAt);
    expect(run.endedAt).toBeLessThanOrEqual(Date.now());
    const messages = await transcript(key);
    expect(Math.abs(Number(messages[0]?.timestamp) - run.createdAt)).toBeLessThanOrEqual(1);
    expect(messages).toEqual([
      {
        id: `in:${runId}`,
        role: "user",
        content: "ping",
        provenance: { kind: "external_user" },
        timestamp: expect.any(Number),
        runId,
      },
      {
        id: expect.any(String),
        role: "assistant",
        content: [{ type: "text", text: "pong" }],
        model: "scripted/echo",
        provider: "scripted",
        stopReason: "stop",
        usage: { input: 1, output: 1, totalTokens: 2 },
        timestamp: expect.any(Number),
        runId,
      },
    ]);
  });

  it("deduplicates by idempotencyKey: the same runId, one message, one run", async () => {
    const key = `agent:main:idem-${uid()}`;
    await createSession({ agentId: "main", key });
    const first = await sendMessage(key, "hello once", { idempotencyKey: "k-1" });
    const again = await sendMessage(key, "hello once", { idempotencyKey: "k-1" });
    expect(again).toBe(first);
    const other = await sendMessage(key, "hello twice", { idempotencyKey: "k-2" });
    expect(other).not.toBe(first);
    expect((await waitRun(first)).status).toBe("ok");
    expect((await waitRun(other)).status).toBe("ok");
    // Even after the run ended, the key still finds it and writes nothing.
    expect(await sendMessage(key, "hello once", { idempotencyKey: "k-1" })).toBe(first);
    expect(await turns(key)).toEqual([
      ["user", "hello once"],
      ["assistant", "Got it: hello once"],
      ["user", "hello twice"],
      ["assistant", "Got it: hello twice"],
    ]);
  });

  it("refuses an unknown session (404) and a bad body (400 naming the field), queueing nothing", async () => {
    const missing = `agent:main:missing-${uid()}`;
    const notFound = await call("POST", sessionPath(missing, "/messages"), {
      token: ADMIN,
      body: { text: "x" },
    });
    expect(notFound.status).toBe(404);
    const key = `agent:main:badmsg-${uid()}`;
    await createSession({ agentId: "main", key });
    const empty = await call<ApiError>("POST", sessionPath(key, "/messages"), {
      token: ADMIN,
      body: { text: " " },
    });
    expect(empty.status).toBe(400);
    expect(empty.json.error.message).toMatch(/^text/);
    const extra = await call<ApiError>("POST", sessionPath(key, "/messages"), {
      token: ADMIN,
      body: { text: "x", runId: "mine" },
    });
    expect(extra.status).toBe(400);
    expect(extra.json.error.message).toContain("runId");
    expect(await transcript(key)).toEqual([]);
  });

  it("lets an agent token send only into its own agent's sessions", async () => {
    const own = `agent:main:tok-${uid()}`;
    const foreign = `agent:research:tok-${uid()}`;
    await createSession({ agentId: "main", key: own });
    await createSession({ agentId: "research", key: foreign });
    const runId = await sendMessage(own, "ping", { token: AGENT_TOKENS.main });
    expect((await waitRun(runId, 10_000, AGENT_TOKENS.main)).reply).toBe("pong");
    const refused = await call("POST", sessionPath(foreign, "/messages"), {
      token: AGENT_TOKENS.main,
      body: { text: "ping" },
    });
    expect(refused.status).toBe(403);
    expect(await transcript(foreign)).toEqual([]);
  });
});

describe("one run at a time, in arrival order", () => {
  it("runs three queued messages in order: replies in order, each starting after the previous ended", async () => {
    const key = `agent:model-echo:order-${uid()}`;
    await createSession({ agentId: "model-echo", key });
    const runIds = [
      await sendMessage(key, "first"),
      await sendMessage(key, "second"),
      await sendMessage(key, "third"),
    ];
    const waited = await Promise.all(runIds.map((runId) => waitRun(runId)));
    expect(waited.map((result) => [result.status, result.reply])).toEqual([
      ["ok", "first"],
      ["ok", "second"],
      ["ok", "third"],
    ]);
    const runs = await Promise.all(runIds.map(async (runId) => ended(await getRun(runId))));
    for (const [index, run] of runs.entries()) {
      expect(run.attempts).toBe(1);
      const previous = runs[index - 1];
      if (previous) {
        expect(run.createdAt).toBeGreaterThanOrEqual(previous.createdAt);
        expect(run.startedAt).toBeGreaterThanOrEqual(previous.endedAt);
      }
    }
    const messages = await transcript(key);
    const replies = messages.filter((message) => message.role === "assistant");
    expect(replies.map((message) => [assistantText(message), message.runId])).toEqual([
      ["first", runIds[0]],
      ["second", runIds[1]],
      ["third", runIds[2]],
    ]);
    expect(messages.filter((message) => message.role === "user").map((message) => message.content)).toEqual([
      "first",
      "second",
      "third",
    ]);
    // Each reply comes after its own question in the transcript.
    for (const runId of runIds) {
      const question = messages.findIndex((message) => message.id === `in:${runId}`);
      const answer = messages.findIndex((message) => message.role === "assistant" && message.runId === runId);
      expect(question).toBeGreaterThanOrEqual(0);
      expect(answer).toBeGreaterThan(question);
    }
  });
});

describe("POST /v1/runs/{runId}/wait", () => {
  it("answers error for a failed run, with the runtime's error", async () => {
    const key = `agent:model-malformed:wait-${uid()}`;
    await createSession({ agentId: "model-malformed", key });
    const runId = await sendMessage(key, "anything");
    expect(await waitRun(runId)).toEqual({
      runId,
      status: "error",
      runStatus: "error",
      error: "model API answered a malformed completion",
      startedAt: expect.any(Number),
      endedAt: expect.any(Number),
    });
  });

  it("validates timeoutMs and answers 404 for an unknown run", async () => {
    const key = `agent:main:waitbad-${uid()}`;
    await createSession({ agentId: "main", key });
    const runId = await sendMessage(key, "ping");
    for (const timeoutMs of [-1, 1.5, "10", 600_001]) {
      const bad = await call<ApiError>("POST", `/v1/runs/${runId}/wait`, {
        token: ADMIN,
        body: { timeoutMs },
      });
      expect(bad.status, JSON.stringify(timeoutMs)).toBe(400);
      expect(bad.json.error.message).toMatch(/^timeoutMs/);
    }
    const unknown = await call("POST", `/v1/runs/${crypto.randomUUID()}/wait`, {
      token: ADMIN,
      body: { timeoutMs: 10 },
    });
    expect(unknown.status).toBe(404);
    expect((await call("GET", `/v1/runs/${crypto.randomUUID()}`, { token: ADMIN })).status).toBe(404);
  });
});
