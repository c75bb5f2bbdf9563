import { describe, expect, it } from "vitest";
import {
  ConflictError,
  ForbiddenError,
  type ImportMessage,
  NotFoundError,
  UnauthorizedError,
} from "../../packages/client/src/index";
import { ADMIN, AGENT_TOKENS, uid } from "../support";
import { lastRoute, suspendedDelivery, testClient } from "./fixtures";

const message = (id: string, role: ImportMessage["role"], content: string, timestamp: number) => ({
  id,
  role,
  content,
  timestamp,
});

describe("client REST methods", () => {
  it("healthz needs no token", async () => {
    const { client, requests } = testClient();
    expect(await client.healthz()).toEqual({
      ok: true,
      version: expect.any(String),
      config: "SWITCHBOARD_CONFIG",
      missingSecrets: [],
    });
    expect(lastRoute(requests)).toBe("GET /healthz");
    expect(requests[0]?.headers.has("Authorization")).toBe(false);
  });

  it("create, get, patch and delete a session", async () => {
    const { client, requests } = testClient({ token: ADMIN });
    const key = `agent:main:client-${uid()}`;
    const created = await client.createSession({ agentId: "main", key, displayName: "Client test" });
    expect(lastRoute(requests)).toBe("POST /v1/sessions");
    expect(created).toMatchObject({ key, agentId: "main", displayName: "Client test" });

    expect(await client.getSession(key)).toMatchObject({ key, displayName: "Client test" });
    expect(lastRoute(requests)).toBe(`GET /v1/sessions/${key}`);
    expect(requests.at(-1)?.rawPath).toBe(`/v1/sessions/${encodeURIComponent(key)}`);
    expect(requests.at(-1)?.headers.get("Authorization")).toBe(`Bearer ${ADMIN}`);

    expect(await client.patchSession(key, { label: "patched", sendPolicy: "deny" })).toMatchObject({
      key,
      label: "patched",
      sendPolicy: "deny",
    });
    expect(lastRoute(requests)).toBe(`PATCH /v1/sessions/${key}`);

    expect(await client.deleteSession(key)).toEqual({ deleted: true });
    expect(lastRoute(requests)).toBe(`DELETE /v1/sessions/${key}`);
    await expect(client.getSession(key)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("erases a session and a sender (SPEC §23)", async () => {
    const { client, requests } = testClient({ token: ADMIN });
    const key = `agent:main:client-erase-${uid()}`;
    await client.createSession({ agentId: "main", key });
    const none = {
      messages: 0,
      searchRows: 0,
      children: 0,
      sent: 0,
      notices: 0,
      quotes: 0,
      summaries: 0,
      pending: 0,
    };
    expect(await client.deleteSession(key, { erase: true })).toEqual({
      deleted: true,
      erased: { sessions: 1, ...none },
    });
    // `erased` in the answer: the query reached the route.
    expect(lastRoute(requests)).toBe(`DELETE /v1/sessions/${key}`);
    expect(await client.eraseSender({ channel: "webchat", senderId: `nobody-${uid()}` })).toEqual({
      erased: { sessions: 0, ...none },
    });
    expect(lastRoute(requests)).toBe("POST /v1/erase");
  });

  it("cron jobs (SPEC §22): add, list, get, update, run and its runs, remove; an agent token its own", async () => {
    const { client, requests } = testClient({ token: ADMIN });
    const jobId = `client-${uid()}`;
    const job = await client.cron.add({
      jobId,
      agentId: "main",
      schedule: { kind: "every", everyMs: 3_600_000 },
      payload: { kind: "agentTurn", message: "check the queue" },
      delivery: { mode: "none" },
    });
    expect(lastRoute(requests)).toBe("POST /v1/cron/jobs");
    expect(job).toMatchObject({ jobId, agentId: "main", enabled: true, source: "api" });
    expect(job.nextRunAt).toBeGreaterThan(Date.now());
    expect((await client.cron.list({ agentId: "main" })).jobs.map((listed) => listed.jobId)).toContain(jobId);
    // (The operator's list without `agentId` is a 400: the query reached the server.)
    expect(await client.cron.get(jobId, { agentId: "main" })).toEqual(job);
    expect(await client.cron.update(jobId, { enabled: false }, { agentId: "main" })).toMatchObject({
      enabled: false,
      nextRunAt: null,
    });
    expect(lastRoute(requests)).toBe(`PATCH /v1/cron/jobs/${jobId}`);
    const ran = await client.cron.run(jobId, { agentId: "main" });
    expect(ran).toEqual({ ok: true, enqueued: true, runId: expect.any(String) });
    expect(lastRoute(requests)).toBe(`POST /v1/cron/jobs/${jobId}/run`);
    const { runs } = await client.cron.runs(jobId, { agentId: "main" });
    expect(runs[0]).toMatchObject({
      runId: ran.runId,
      sessionKey: `agent:main:cron:${jobId}:run:${ran.runId}`,
    });

    // An agent token manages its own agent's jobs without naming it, and no other agent's.
    const own = testClient({ token: AGENT_TOKENS.main }).client;
    expect((await own.cron.list()).jobs.map((listed) => listed.jobId)).toContain(jobId);
    await expect(own.cron.list({ agentId: "research" })).rejects.toBeInstanceOf(ForbiddenError);

    expect(await client.cron.remove(jobId, { agentId: "main" })).toEqual({ status: "ok", removed: true });
    await expect(client.cron.get(jobId, { agentId: "main" })).rejects.toBeInstanceOf(NotFoundError);
  });

  it("imports a transcript and exports it byte for byte", async () => {
    const { client, requests } = testClient({ token: ADMIN });
    const key = `agent:main:client-${uid()}`;
    await client.createSession({ key });
    const messages = [
      message("m1", "user", "hello there", 1_763_700_000_000),
      message("m2", "assistant", "<think>hm</think>Hi.", 1_763_700_001_000),
    ];
    expect(await client.importTranscript(key, messages)).toEqual({
      imported: 2,
      skipped: 0,
      totalMessages: 2,
    });
    expect(lastRoute(requests)).toBe(`POST /v1/sessions/${key}/transcript`);
    expect(JSON.parse(requests.at(-1)?.body ?? "{}")).toEqual({ messages });

    const jsonl = await client.exportTranscript(key);
    expect(lastRoute(requests)).toBe(`GET /v1/sessions/${key}/transcript.jsonl`);
    expect(jsonl).toBe(messages.map((line) => `${JSON.stringify(line)}\n`).join(""));
  });

  it("chat.send, then read and wait for the run", async () => {
    const { client, requests } = testClient({ token: AGENT_TOKENS.main });
    const key = `agent:main:client-${uid()}`;
    await client.createSession({ key });
    const queued = await client.sendMessage(key, { text: "ping" });
    expect(lastRoute(requests)).toBe(`POST /v1/sessions/${key}/messages`);
    expect(queued).toEqual({ runId: expect.any(String), status: "accepted" });

    const waited = await client.waitRun(queued.runId, { timeoutMs: 10_000 });
    expect(lastRoute(requests)).toBe(`POST /v1/runs/${queued.runId}/wait`);
    expect(waited).toMatchObject({ runId: queued.runId, status: "ok", runStatus: "ok", reply: "pong" });

    // Naming the session finds the run without the index; a session that does not own it is 404.
    const named = await client.waitRun(queued.runId, { timeoutMs: 0, sessionKey: key });
    expect(named).toMatchObject({ runId: queued.runId, status: "ok", reply: "pong" });
    const elsewhere = await client
      .waitRun(queued.runId, { timeoutMs: 0, sessionKey: `agent:main:client-other-${uid()}` })
      .catch((error: unknown) => error);
    expect(elsewhere).toMatchObject({ status: 404 });

    const run = await client.getRun(queued.runId);
    expect(lastRoute(requests)).toBe(`GET /v1/runs/${queued.runId}`);
    expect(run).toMatchObject({ runId: queued.runId, sessionKey: key, status: "ok", reply: "pong" });
  });

  it("posting a run result needs that run's own token", async () => {
    const { client, requests } = testClient({ token: ADMIN });
    const key = `agent:main:client-${uid()}`;
    await client.createSession({ key });
    const { runId } = await client.sendMessage(key, { text: "ping" });
    const posted = client.postRunResult(runId, { text: "late answer" });
    await expect(posted).rejects.toBeInstanceOf(ForbiddenError);
    await expect(posted).rejects.toMatchObject({
      status: 403,
      serverMessage: "only the run's own run token may post its result",
    });
    expect(lastRoute(requests)).toBe(`POST /v1/runs/${runId}/result`);
  });

  it("creates a grant, reads history and sends with its token, then revokes it", async () => {
    const { client, requests } = testClient({ token: AGENT_TOKENS.main });
    const key = `agent:main:client-${uid()}`;
    await client.createSession({ key });
    const grant = await client.createGrant({ sessionKey: key, scopes: ["read", "send"], ttlSeconds: 3600 });
    expect(lastRoute(requests)).toBe("POST /v1/grants");
    expect(grant).toMatchObject({ sessionKey: key, scopes: ["read", "send"], expiresAt: expect.any(Number) });

    await client.importTranscript(key, [
      message("m1", "user", "hello", 1_763_700_000_000),
      message("m2", "assistant", "<think>hm</think>Hi.", 1_763_700_001_000),
    ]);
    const widget = client.with({ token: grant.token });
    const page = await widget.history(key, { limit: 1, includeTools: false });
    expect(lastRoute(requests)).toBe(`GET /v1/sessions/${key}/history`);
    expect(page).toMatchObject({ sessionKey: key, hasMore: true, nextOffset: 1, totalMessages: 2 });
    expect(page.messages).toMatchObject([{ id: "m2", content: "Hi." }]);
    expect(await widget.sendMessage(key, { text: "ping" })).toMatchObject({ status: "accepted" });
    await expect(widget.getRun(grant.grantId)).rejects.toBeInstanceOf(ForbiddenError);

    const { grants } = await client.grants();
    expect(lastRoute(requests)).toBe("GET /v1/grants");
    expect(grants.find((listed) => listed.grantId === grant.grantId)).toEqual({
      grantId: grant.grantId,
      sessionKey: key,
      sessionId: expect.any(String),
      scopes: ["read", "send"],
      createdAt: expect.any(Number),
      expiresAt: grant.expiresAt,
    });
    await expect(widget.grants()).rejects.toBeInstanceOf(ForbiddenError);

    expect(await client.revokeGrant(grant.grantId)).toEqual({ grantId: grant.grantId, revoked: true });
    expect(lastRoute(requests)).toBe(`DELETE /v1/grants/${grant.grantId}`);
    await expect(widget.history(key)).rejects.toBeInstanceOf(UnauthorizedError);
  });

  it("maintenance: the storage report (dry run changes nothing), operator only (SPEC §23)", async () => {
    const { client, requests } = testClient({ token: ADMIN });
    const report = await client.maintenance({ mode: "dry-run" });
    expect(lastRoute(requests)).toBe("POST /v1/maintenance");
    expect(report.mode).toBe("dry-run");
    expect(report.done).toBeUndefined();
    expect(report.agents.find((agent) => agent.agentId === "main")).toEqual({
      agentId: "main",
      sessions: expect.any(Number),
      messages: expect.any(Number),
      objectBytes: expect.any(Number),
      wouldArchive: expect.any(Number),
      wouldDelete: expect.any(Number),
      largest: expect.any(Array),
    });
    expect(report.shards[0]).toEqual({ shard: "DB", bytes: expect.any(Number) });
    await expect(
      client.with({ token: AGENT_TOKENS.main }).maintenance({ mode: "dry-run" }),
    ).rejects.toBeInstanceOf(ForbiddenError);
  });

  it("the delivery ledger: list, read, dismiss and retry a suspended delivery", async () => {
    const { sessionKey, deliveryId } = await suspendedDelivery();
    const { client, requests } = testClient({ token: ADMIN });
    const page = await client.deliveries({ status: "suspended", sessionKey, kind: "reply", limit: 10 });
    expect(lastRoute(requests)).toBe("GET /v1/deliveries");
    expect(page).toEqual({ count: 1, deliveries: [expect.objectContaining({ deliveryId })] });

    const record = await client.delivery(deliveryId);
    expect(lastRoute(requests)).toBe(`GET /v1/deliveries/${deliveryId}`);
    expect(record).toEqual({
      deliveryId,
      kind: "reply",
      runId: expect.any(String),
      sessionKey,
      target: expect.stringMatching(/^slack:/),
      status: "suspended",
      attempts: expect.any(Number),
      lastError: "the queue gave up",
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
    });

    // Dismiss first: a retried record is soon handed to the Queue, and an in-progress one is not dismissable.
    expect(await client.dismissDelivery(deliveryId)).toMatchObject({ deliveryId, status: "dismissed" });
    expect(lastRoute(requests)).toBe(`POST /v1/deliveries/${deliveryId}/dismiss`);
    expect(await client.retryDelivery(deliveryId)).toMatchObject({
      deliveryId,
      status: "pending",
      attempts: 0,
    });
    expect(lastRoute(requests)).toBe(`POST /v1/deliveries/${deliveryId}/retry`);
    const again = await client.retryDelivery(deliveryId).catch((error: unknown) => error);
    expect(again).toBeInstanceOf(ConflictError);
    expect(again).toMatchObject({
      status: 409,
      code: "conflict",
      message: expect.stringContaining("retried"),
    });

    // Another agent's token sees no such record.
    await expect(client.with({ token: AGENT_TOKENS.research }).delivery(deliveryId)).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });
});
