import { describe, expect, it } from "vitest";
import { deriveKey } from "../../src/auth/purpose-keys";
import { verifySignatureHeader } from "../../src/channels/signature";
import { ADMIN, SIGNING_KEY } from "../support/auth";
import { driveUntil, runAlarms } from "../support/drive";
import { fakeServicesUrl, type RecordedRequest, recorded } from "../support/fake-services";
import { call, sessionPath } from "../support/http";
import { uid } from "../support/ids";
import { ended, getRun, waitRun } from "../support/runs";
import { createSession, session, storedRuns } from "../support/sessions";
import { callTool } from "../support/tools";

/** A run webhook's body (SPEC §22). */
interface RunOutcome {
  runId: string;
  sessionKey: string;
  status: string;
  reply: string | null;
  usage: unknown;
  startedAt: number;
  endedAt: number;
}

const receiver = (scenario: string, id: string) => `${fakeServicesUrl()}/receiver/${scenario}/rec-${id}`;

/** What the receiver got, every POST checked to be signed with the key `switchboard secret webhooks` prints. */
async function receivedSigned(id: string): Promise<RecordedRequest<RunOutcome>[]> {
  const key = await deriveKey(SIGNING_KEY, { use: "webhooks" });
  const posts = await recorded<RunOutcome>(id);
  for (const post of posts) {
    expect(post.method).toBe("POST");
    expect(post.headers["content-type"]).toBe("application/json");
    expect(await verifySignatureHeader(key, post.headers["x-switchboard-signature"], post.body)).toBe(true);
  }
  return posts;
}

/** The session's ledger records of kind webhook, from the operator API. */
async function webhookRecords(sessionKey: string) {
  const listed = await call<{
    deliveries: { deliveryId: string; status: string; attempts: number; runId: string }[];
  }>("GET", `/v1/deliveries?kind=webhook&sessionKey=${encodeURIComponent(sessionKey)}`, { token: ADMIN });
  expect(listed.status, listed.text).toBe(200);
  return listed.json.deliveries;
}

async function chatSend(key: string, body: Record<string, unknown>) {
  return call<{ runId: string }>("POST", sessionPath(key, "/messages"), { token: ADMIN, body });
}

describe("run webhooks on chat.send (SPEC §22)", () => {
  it("POSTs the run's outcome once, signed, when the run ends", async () => {
    const key = `agent:main:webhook-run-${uid()}`;
    await createSession({ key });
    const id = `run-webhook-${uid()}`;
    const sent = await chatSend(key, { text: "hello there", webhook: receiver("ok", id) });
    expect(sent.status, sent.text).toBe(202);
    const run = ended(await getRun((await waitRun(sent.json.runId)).runId));
    const post = await driveUntil([key], async () => (await receivedSigned(id))[0], "the webhook");
    expect(post.headers["idempotency-key"]).toBe(`run:${run.runId}`);
    expect(post.json).toEqual({
      runId: run.runId,
      sessionKey: key,
      status: "ok",
      reply: "Got it: hello there",
      // The scripted runtime's own count of its words in and out.
      usage: { input: 3, output: 5, total: 8 },
      startedAt: run.startedAt,
      endedAt: run.endedAt,
    });
    // However often the alarm runs afterwards, nothing is posted again.
    await runAlarms([key], 3);
    expect(await receivedSigned(id)).toHaveLength(1);
    const [record] = await driveUntil(
      [key],
      async () => {
        const records = await webhookRecords(key);
        return records[0]?.status === "delivered" ? records : undefined;
      },
      "the webhook's record in the index",
    );
    expect(record).toMatchObject({ runId: run.runId, status: "delivered", attempts: 1 });
  });

  it("retries a 5xx through the ledger's alarm with the same bytes and key, then stops", async () => {
    const key = `agent:main:webhook-flaky-${uid()}`;
    await createSession({ key });
    const id = `run-webhook-flaky-${uid()}`;
    const sent = await chatSend(key, { text: "retry me", webhook: receiver("flaky/2", id) });
    await waitRun(sent.json.runId);
    const posts = await driveUntil(
      [key],
      async () => {
        const got = await receivedSigned(id);
        return got.length >= 3 ? got : undefined;
      },
      "three attempts",
    );
    await runAlarms([key], 3);
    expect(await receivedSigned(id)).toHaveLength(3);
    expect(new Set(posts.map((post) => post.body)).size).toBe(1);
    expect(new Set(posts.map((post) => post.headers["idempotency-key"]))).toEqual(
      new Set([`run:${sent.json.runId}`]),
    );
    const records = await driveUntil(
      [key],
      async () => {
        const found = await webhookRecords(key);
        return found[0]?.status === "delivered" ? found : undefined;
      },
      "the record delivered",
    );
    expect(records).toHaveLength(1);
    expect(records[0]?.attempts).toBe(3);
  });

  it("fails a 4xx at once, never retried", async () => {
    const key = `agent:main:webhook-404-${uid()}`;
    await createSession({ key });
    const id = `run-webhook-404-${uid()}`;
    const sent = await chatSend(key, { text: "nobody home", webhook: receiver("status-404", id) });
    await waitRun(sent.json.runId);
    const [record] = await driveUntil(
      [key],
      async () => {
        const found = await webhookRecords(key);
        return found[0]?.status === "failed" ? found : undefined;
      },
      "the record failed",
    );
    expect(record?.attempts).toBe(1);
    await runAlarms([key], 3);
    expect(await recorded(id)).toHaveLength(1);
  });

  it.each([
    ["https://elsewhere.example/hook", "origin https://elsewhere.example is not in webhooks.allowedOrigins"],
    ["http://127.0.0.1:1/hook", "is not in webhooks.allowedOrigins"],
    ["ftp://127.0.0.1/hook", "is not http or https"],
    ["user@127.0.0.1", "is not a URL"],
  ])("refuses %s with a 400 naming webhook, writing nothing", async (url, why) => {
    const key = `agent:main:webhook-refused-${uid()}`;
    await createSession({ key });
    const sent = await chatSend(key, { text: "should not run", webhook: url });
    expect(sent.status, sent.text).toBe(400);
    expect(sent.text).toContain(`webhook: `);
    expect(sent.text).toContain(why);
    expect(await storedRuns(key)).toEqual([]);
  });

  it("refuses a URL with userinfo even at an allowed origin", async () => {
    const key = `agent:main:webhook-userinfo-${uid()}`;
    await createSession({ key });
    const url = fakeServicesUrl().replace("http://", "http://user:pw@");
    const sent = await chatSend(key, { text: "should not run", webhook: `${url}/receiver/ok/rec-x` });
    expect(sent.status, sent.text).toBe(400);
    expect(sent.text).toContain("webhook: must not carry a user name or password");
    expect(await storedRuns(key)).toEqual([]);
  });
});

describe("a cron job's webhook delivery, as the scheduler owes it (SPEC §22)", () => {
  it("POSTs { jobId, runId, status, text, startedAt, endedAt } for a turn carrying webhook.jobId", async () => {
    const key = `agent:main:webhook-cron-${uid()}`;
    await createSession({ key });
    const id = `cron-webhook-${uid()}`;
    const runId = crypto.randomUUID();
    const queued = await session(key).enqueueTurn({
      runId,
      message: { text: "nightly report", provenance: { kind: "system", sourceTool: "cron" } },
      webhook: { url: receiver("ok", id), jobId: "job-nightly" },
    });
    expect(queued.ok).toBe(true);
    const run = ended(await getRun((await waitRun(runId)).runId));
    const post = await driveUntil([key], async () => (await receivedSigned(id))[0], "the webhook");
    expect(post.json).toEqual({
      jobId: "job-nightly",
      runId,
      status: "ok",
      text: "Got it: nightly report",
      startedAt: run.startedAt,
      endedAt: run.endedAt,
    });
  });
});

describe("run webhooks on sessions_spawn (SPEC §22)", () => {
  it("POSTs the child's run outcome, with the child's session key", async () => {
    const requester = `agent:main:webhook-spawner-${uid()}`;
    await createSession({ key: requester });
    const id = `spawn-webhook-${uid()}`;
    const spawned = await callTool<{ childSessionKey: string; runId: string }>("sessions_spawn", requester, {
      task: "count the beans",
      webhook: receiver("ok", id),
    });
    expect(spawned.status, spawned.text).toBe(200);
    const { childSessionKey, runId } = spawned.json;
    await waitRun(runId);
    const post = await driveUntil(
      [childSessionKey, requester],
      async () => (await receivedSigned(id))[0],
      "the webhook",
    );
    expect(post.json).toMatchObject({ runId, sessionKey: childSessionKey, status: "ok" });
  });

  it("refuses a webhook outside the allowed origins with a 400 naming webhook, spawning nothing", async () => {
    const requester = `agent:main:webhook-spawner-${uid()}`;
    await createSession({ key: requester });
    const spawned = await callTool("sessions_spawn", requester, {
      task: "count the beans",
      webhook: "https://elsewhere.example/",
    });
    expect(spawned.status, spawned.text).toBe(400);
    expect(spawned.text).toContain(
      "webhook: origin https://elsewhere.example is not in webhooks.allowedOrigins",
    );
    const listed = await callTool<{ sessions: { key: string }[] }>("sessions_list", requester, {});
    expect(listed.status, listed.text).toBe(200);
    expect(listed.json.sessions.filter((row) => row.key.includes(":subagent:"))).toEqual([]);
  });
});
