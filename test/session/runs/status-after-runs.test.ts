import { describe, expect, it } from "vitest";
import {
  call,
  createSession,
  deferredRun,
  drive,
  driveUntil,
  getRun,
  type RunWaitResult,
  runStarted,
  type SessionRow,
  sendMessage,
  tool,
  uid,
  waitRun,
} from "../../support";

/** The session's own sessions_list row (requester = the session itself, so `tree` shows it). */
async function listRow(key: string): Promise<SessionRow> {
  const listed = await tool("sessions_list", key, { search: key });
  expect(listed.sessions.map((row) => row.key)).toEqual([key]);
  const [row] = listed.sessions;
  if (!row) throw new Error(`${key} is not listed`);
  return row;
}

const statusCard = async (key: string): Promise<string> => (await tool("session_status", key)).statusText;

describe("session_status and sessions_list after runs", () => {
  it("show the summed in/out tokens, the last call's context as totalTokens, runtime and the last run's status", async () => {
    const key = `agent:main:stat-${uid()}`;
    await createSession({ agentId: "main", key });
    const before = await listRow(key);
    expect(before.status).toBeUndefined();
    expect(before.totalTokens).toBeUndefined();
    expect(await statusCard(key)).toContain("Runtime: none yet");

    // Scripted usage is ceil(chars / 4): "ping"→"pong" is 1 + 1; "hello there"→"Got it: hello there" is 3 + 5.
    const first = await sendMessage(key, "ping");
    await waitRun(first);
    const second = await sendMessage(key, "hello there");
    const ended = await waitRun(second);
    await drive([key]);

    const row = await listRow(key);
    expect(row).toMatchObject({
      status: "done",
      inputTokens: 4,
      outputTokens: 6,
      // OpenClaw's meaning: the context of the latest run's last call (3 + 5), not a lifetime sum.
      totalTokens: 8,
      startedAt: ended.startedAt,
      endedAt: ended.endedAt,
      runtimeMs: expect.any(Number),
      abortedLastRun: false,
    });
    expect(row.runtimeMs).toBeGreaterThanOrEqual(0);
    const card = await statusCard(key);
    expect(card).toContain("Tokens: 4 in / 6 out");
    expect(card).toContain("Run: idle");
    expect(card).toMatch(/Runtime: \d+s/);
  });

  it("list a run that takes a while as running while it runs, then done", async () => {
    // model-slow answers after 3 s; the index shows a run as running once it has run for 250 ms.
    const key = `agent:model-slow:stat-${uid()}`;
    await createSession({ agentId: "model-slow", key });
    const runId = await sendMessage(key, "take your time");
    const run = await runStarted(runId);
    // The run in flight writes its index row itself after 250 ms, a D1 write that tells no event and no
    // fake service: look until it has (no alarm to drive; one would wait for the run to end).
    const row = await driveUntil(
      [],
      async () => {
        const listed = await listRow(key);
        return listed.status === "running" ? listed : undefined;
      },
      "the index to list the run as running",
    );
    expect(row).toMatchObject({ status: "running", startedAt: run.startedAt });
    await waitRun(runId);
    await drive([key]);
    expect((await listRow(key)).status).toBe("done");
  });

  it("show a deferred run as running / active until its result arrives", async () => {
    const key = `agent:hook-async-rec:stat-${uid()}`;
    await createSession({ agentId: "hook-async-rec", key });
    const runId = await sendMessage(key, "long job");
    const post = await deferredRun(key, runId);
    const run = await getRun(runId);
    await drive([key]);
    expect(await listRow(key)).toMatchObject({ status: "running", startedAt: run.startedAt });
    expect(await statusCard(key)).toContain("Run: active");

    const result = await call<RunWaitResult>("POST", `/v1/runs/${runId}/result`, {
      token: post.runToken,
      body: { text: "finished", usage: { input: 100, output: 1200 } },
    });
    expect(result.json.status).toBe("ok");
    await drive([key]);
    expect(await listRow(key)).toMatchObject({
      status: "done",
      inputTokens: 100,
      outputTokens: 1200,
      totalTokens: 1300,
      endedAt: result.json.endedAt,
    });
    const card = await statusCard(key);
    expect(card).toContain("Tokens: 100 in / 1.2k out");
    expect(card).toContain("Run: idle");
  });

  it("show a failed run as failed", async () => {
    const key = `agent:model-malformed:stat-${uid()}`;
    await createSession({ agentId: "model-malformed", key });
    await waitRun(await sendMessage(key, "break"));
    await drive([key]);
    expect(await listRow(key)).toMatchObject({ status: "failed", abortedLastRun: false });
    expect(await statusCard(key)).toContain("Run: idle");
  });
});
