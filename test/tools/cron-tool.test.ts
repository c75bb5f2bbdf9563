import { describe, expect, it } from "vitest";
import { allowedTools } from "../../src/policy/tool-profiles";
import { callTool, createSession, createSpawned, driveUntil, uid, workerConfig } from "../support";

const turn = { kind: "agentTurn", message: "ping" };

describe("the cron tool (SPEC §22)", () => {
  it("add → { status, job }, list → { jobs }, update, run → runId, runs → { runs }, remove", async () => {
    const requester = `agent:main:cron-tool-${uid()}`;
    await createSession({ agentId: "main", key: requester });
    const jobId = `tool-${uid()}`;
    const cron = async (args: Record<string, unknown>) => {
      const answer = await callTool<Record<string, unknown>>("cron", requester, args);
      expect(answer.status, answer.text).toBe(200);
      return answer.json;
    };
    const added = await cron({
      action: "add",
      job: {
        jobId,
        schedule: { kind: "every", everyMs: 3_600_000 },
        payload: turn,
        delivery: { mode: "none" },
      },
    });
    expect(added).toMatchObject({ status: "ok", job: { jobId, agentId: "main", source: "api" } });
    expect(((await cron({ action: "list" })).jobs as { jobId: string }[]).map((job) => job.jobId)).toContain(
      jobId,
    );
    expect(await cron({ action: "update", jobId, patch: { name: "Hourly ping" } })).toMatchObject({
      status: "ok",
      job: { name: "Hourly ping" },
    });
    const ran = await cron({ action: "run", jobId });
    expect(ran).toEqual({ ok: true, enqueued: true, runId: expect.any(String) });
    const runKey = `agent:main:cron:${jobId}:run:${ran.runId}`;
    const runs = await driveUntil(
      [runKey],
      async () => {
        const answer = (await cron({ action: "runs", jobId })) as { runs: { status: string }[] };
        return answer.runs[0]?.status === "ok" ? answer.runs : undefined;
      },
      "the run to end",
    );
    expect(runs).toEqual([
      expect.objectContaining({ runId: ran.runId, status: "ok", deliveryStatus: "none" }),
    ]);
    expect(await cron({ action: "remove", jobId })).toEqual({ status: "ok", removed: true });
    expect(await cron({ action: "runs", jobId })).toEqual({ status: "error", error: `no job "${jobId}"` });
  });

  it("bad input names the field; another agent's job is forbidden; nothing is stored", async () => {
    const requester = `agent:main:cron-bad-${uid()}`;
    await createSession({ agentId: "main", key: requester });
    const bad = await callTool("cron", requester, {
      action: "add",
      job: { schedule: { kind: "every", everyMs: 1000 }, payload: turn },
    });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain("job.schedule.everyMs: at least 60000 (one minute)");
    const other = await callTool("cron", requester, {
      action: "add",
      job: { agentId: "research", schedule: { kind: "every", everyMs: 60_000 }, payload: turn },
    });
    expect(other.json).toEqual({
      status: "forbidden",
      error: "agentId: the cron tool manages agent main's jobs only",
    });
    const target = await callTool("cron", requester, {
      action: "add",
      job: { schedule: { kind: "every", everyMs: 60_000 }, payload: turn, sessionTarget: "session:nowhere" },
    });
    expect(target.json).toEqual({
      status: "error",
      error: "sessionTarget: session agent:main:nowhere not found",
    });
  });

  it("is in the coding and full profiles, never offered to a sub-agent (even when tools.subagents allows it)", async () => {
    const config = workerConfig();
    const top = {
      agentId: "main",
      sessionKey: "agent:main:main",
      depth: 0,
      sandboxed: false,
      isSubagent: false,
    };
    expect(allowedTools(config, top).has("cron")).toBe(true);
    expect(allowedTools(config, { ...top, agentId: "ops" }).has("cron")).toBe(false); // messaging
    const allowing = { ...config, tools: { ...config.tools, subagents: { tools: { allow: ["cron"] } } } };
    expect(allowedTools(allowing, { ...top, depth: 1, isSubagent: true }).has("cron")).toBe(false);
    const child = `agent:main:subagent:${crypto.randomUUID()}`;
    const parent = `agent:main:cron-parent-${uid()}`;
    await createSession({ agentId: "main", key: parent });
    await createSpawned({
      sessionKey: child,
      agentId: "main",
      spawnedBy: parent,
      parentSessionKey: parent,
      spawnDepth: 1,
    });
    const refused = await callTool("cron", child, { action: "list" });
    expect(refused.status).toBe(404);
  });
});
