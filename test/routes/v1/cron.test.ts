import { describe, expect, it } from "vitest";
import { ADMIN, AGENT_TOKENS, call, createSession, driveUntil, runToken, uid } from "../../support";

const turn = { kind: "agentTurn", message: "summarize the deploys" };
const daily = { kind: "cron", expr: "0 9 * * 1-5", tz: "Europe/Berlin" };

type Job = { jobId: string; agentId: string; nextRunAt: number | null; source: string };

async function jobsOf(agentId: string): Promise<Job[]> {
  const listed = await call<{ jobs: Job[] }>("GET", `/v1/cron/jobs?agentId=${agentId}`, { token: ADMIN });
  expect(listed.status, listed.text).toBe(200);
  return listed.json.jobs;
}

describe("REST /v1/cron/jobs (SPEC §22)", () => {
  it("POST → 201 with the job; GET list → { jobs }; GET one; PATCH; run → runId; runs → { runs }; DELETE", async () => {
    const jobId = `deploys-${uid()}`;
    const created = await call<Job>("POST", "/v1/cron/jobs", {
      token: ADMIN,
      body: {
        jobId,
        agentId: "main",
        name: "Deploys",
        schedule: daily,
        payload: turn,
        delivery: { mode: "none" },
      },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.json).toEqual({
      jobId,
      name: "Deploys",
      agentId: "main",
      enabled: true,
      schedule: daily,
      sessionTarget: "isolated",
      payload: turn,
      delivery: { mode: "none" },
      deleteAfterRun: false,
      source: "api",
      createdAt: expect.any(Number),
      nextRunAt: expect.any(Number),
    });
    // 09:00 in Berlin is 07:00 or 08:00 UTC, on a weekday.
    const next = new Date(created.json.nextRunAt ?? 0);
    expect([7, 8]).toContain(next.getUTCHours());
    expect([1, 2, 3, 4, 5]).toContain(next.getUTCDay());
    expect((await jobsOf("main")).map((job) => job.jobId)).toContain(jobId);
    const one = await call<Job>("GET", `/v1/cron/jobs/${jobId}?agentId=main`, { token: AGENT_TOKENS.main });
    expect(one.json).toEqual(created.json);

    const patched = await call("PATCH", `/v1/cron/jobs/${jobId}?agentId=main`, {
      token: ADMIN,
      body: { enabled: false },
    });
    expect(patched.json).toMatchObject({ enabled: false, nextRunAt: null });

    const ran = await call<{ runId: string }>("POST", `/v1/cron/jobs/${jobId}/run?agentId=main`, {
      token: ADMIN,
    });
    expect(ran.json).toEqual({ ok: true, enqueued: true, runId: expect.any(String) });
    const sessionKey = `agent:main:cron:${jobId}:run:${ran.json.runId}`;
    const runs = await driveUntil(
      [sessionKey],
      async () => {
        const answer = await call<{ runs: { status: string }[] }>(
          "GET",
          `/v1/cron/jobs/${jobId}/runs?agentId=main`,
          {
            token: ADMIN,
          },
        );
        return answer.json.runs[0]?.status === "ok" ? answer.json.runs : undefined;
      },
      "the run to end",
    );
    expect(runs).toEqual([
      {
        runId: ran.json.runId,
        sessionKey,
        scheduledAt: expect.any(Number),
        startedAt: expect.any(Number),
        endedAt: expect.any(Number),
        status: "ok",
        durationMs: expect.any(Number),
        deliveryStatus: "none",
      },
    ]);

    const removed = await call("DELETE", `/v1/cron/jobs/${jobId}?agentId=main`, { token: ADMIN });
    expect(removed.json).toEqual({ status: "ok", removed: true });
    expect((await call("GET", `/v1/cron/jobs/${jobId}?agentId=main`, { token: ADMIN })).status).toBe(404);
  });

  it("bad input is a 400 naming the field, and nothing is stored", async () => {
    const tag = uid();
    const bad: [Record<string, unknown>, string | RegExp][] = [
      [{ schedule: { kind: "cron", expr: "0 9 * *" }, payload: turn }, /^schedule\.expr: /],
      [
        { schedule: { ...daily, tz: "Europe/Atlantis" }, payload: turn },
        "schedule.tz: unknown IANA time zone",
      ],
      [
        { schedule: { kind: "every", everyMs: 30_000 }, payload: turn },
        "schedule.everyMs: at least 60000 (one minute)",
      ],
      [{ schedule: daily, payload: turn, agentId: "nobody" }, 'agentId: unknown agent "nobody"'],
      [
        { schedule: daily, payload: turn, sessionTarget: `session:agent:main:missing-${tag}` },
        `sessionTarget: session agent:main:missing-${tag} not found`,
      ],
      [
        { schedule: daily, payload: turn, sessionTarget: "session:agent:research:main" },
        "sessionTarget: agent:research:main is not a session of agent main",
      ],
      [
        { schedule: daily, payload: turn, delivery: { mode: "webhook", url: "https://evil.example/hook" } },
        /^delivery\.url: /,
      ],
      [
        { schedule: daily, payload: turn, delivery: { mode: "announce", channel: "nowhere" } },
        'delivery.channel: unknown channel "nowhere"',
      ],
    ];
    for (const [body, error] of bad) {
      const jobId = `bad-${uid()}`;
      const answer = await call<{ error: { code: string; message: string } }>("POST", "/v1/cron/jobs", {
        token: ADMIN,
        body: { agentId: "main", jobId, ...body },
      });
      expect(answer.status, answer.text).toBe(400);
      if (typeof error === "string") expect(answer.json.error.message).toBe(error);
      else expect(answer.json.error.message).toMatch(error);
      expect((await jobsOf("main")).map((job) => job.jobId)).not.toContain(jobId);
    }
    expect(
      (await call("POST", "/v1/cron/jobs", { token: ADMIN, body: { schedule: daily, payload: turn } })).json,
    ).toEqual({
      error: { code: "bad_request", message: "agentId required" },
    });
  });

  it("at most 200 jobs per agent: the 201st is a 400 naming agentId", async () => {
    const agentId = "quiet";
    const existing = (await jobsOf(agentId)).length;
    for (let index = existing; index < 200; index++) {
      const made = await call("POST", "/v1/cron/jobs", {
        token: ADMIN,
        body: { agentId, jobId: `many-${index}`, schedule: daily, payload: turn, enabled: false },
      });
      expect(made.status, made.text).toBe(201);
    }
    const over = await call<{ error: { message: string } }>("POST", "/v1/cron/jobs", {
      token: ADMIN,
      body: { agentId, jobId: "one-too-many", schedule: daily, payload: turn },
    });
    expect(over.status).toBe(400);
    expect(over.json.error.message).toBe("agentId: agent quiet has 200 jobs, the most allowed");
    expect((await jobsOf(agentId)).map((job) => job.jobId)).not.toContain("one-too-many");
  });

  it("an agent token manages its own agent's jobs only; run and grant tokens are refused", async () => {
    const jobId = `own-${uid()}`;
    const made = await call("POST", "/v1/cron/jobs", {
      token: AGENT_TOKENS.research,
      body: { jobId, schedule: daily, payload: turn },
    });
    expect(made.status, made.text).toBe(201);
    expect(made.json).toMatchObject({ agentId: "research" });
    for (const [method, path] of [
      ["GET", "/v1/cron/jobs?agentId=research"],
      ["GET", `/v1/cron/jobs/${jobId}?agentId=research`],
      ["PATCH", `/v1/cron/jobs/${jobId}?agentId=research`],
      ["DELETE", `/v1/cron/jobs/${jobId}?agentId=research`],
      ["POST", `/v1/cron/jobs/${jobId}/run?agentId=research`],
      ["GET", `/v1/cron/jobs/${jobId}/runs?agentId=research`],
    ] as const) {
      const answer = await call(method, path, {
        token: AGENT_TOKENS.main,
        body: method === "PATCH" ? { enabled: false } : undefined,
      });
      expect(answer.status, `${method} ${path}`).toBe(403);
    }
    // Its own agent's list does not hold it; the job is unchanged.
    const mine = await call<{ jobs: Job[] }>("GET", "/v1/cron/jobs", { token: AGENT_TOKENS.main });
    expect(mine.json.jobs.map((job) => job.jobId)).not.toContain(jobId);
    expect((await call(`GET`, `/v1/cron/jobs/${jobId}`, { token: AGENT_TOKENS.main })).status).toBe(404);
    expect((await jobsOf("research")).find((job) => job.jobId === jobId)).toMatchObject({ source: "api" });
    const key = `agent:main:cron-rest-${uid()}`;
    await createSession({ agentId: "main", key });
    const run = await call("GET", "/v1/cron/jobs?agentId=main", {
      token: await runToken({ sessionKey: key }),
    });
    expect(run.status).toBe(403);
  });
});
