import { describe, expect, it } from "vitest";
import { NESTED_COMPLETION_CONTEXT } from "../../src/subagents/completion";
import { capturingContext, findRun, requesterFor, send, sendWith, waitRun } from "../support";
import { ADMIN } from "../support/auth";
import { addJob, inScheduler, jobRuns, runSchedulerAlarm, scheduler } from "../support/cron";
import { driveUntil, runAlarms } from "../support/drive";
import { call } from "../support/http";
import { uid } from "../support/ids";
import { answerDeferred } from "../support/runs";
import { createSpawned, outboxSize, session, storedRuns, transcript } from "../support/sessions";
import { completionsAfter } from "../support/subagents";
import { callTool } from "../support/tools";

/** Fires a job of `agentId` now and drives its run session until `runs` has the run's end. */
async function cronRun(agentId: string, message: string) {
  const jobId = `req-${uid()}`;
  await addJob(agentId, jobId, {
    schedule: { kind: "every", everyMs: 3_600_000 },
    payload: { kind: "agentTurn", message },
    delivery: { mode: "none" },
  });
  const fired = await scheduler(agentId).cronRun(agentId, jobId);
  if (!fired.ok) throw new Error(fired.message);
  const [taken] = await jobRuns(agentId, jobId);
  if (!taken) throw new Error("no run");
  const ended = await driveUntil(
    [taken.sessionKey],
    async () => {
      const run = (await jobRuns(agentId, jobId)).find((item) => item.runId === taken.runId);
      return run && run.status !== "running" ? run : undefined;
    },
    "the cron run to end",
  );
  expect(ended.status).toBe("ok");
  return { jobId, key: taken.sessionKey };
}

/** The completion records of kind `completion` a session owes, from the operator's ledger view. */
async function completionRecords(sessionKey: string) {
  const listed = await call<{ deliveries: { status: string; lastError?: string; attempts: number }[] }>(
    "GET",
    `/v1/deliveries?kind=completion&sessionKey=${encodeURIComponent(sessionKey)}`,
    { token: ADMIN },
  );
  expect(listed.status, listed.text).toBe(200);
  return listed.json.deliveries;
}

describe("a cron requester follows OpenClaw's rules (SPEC §5, §22)", () => {
  it("a scheduled run's own sessions_spawn returns no note; the child's completion comes back with the nested prompt", async () => {
    // The spawner's scripted rule spawns a worker (with files) for "attach files".
    const { key } = await cronRun("spawner", "attach files");
    const result = (await transcript(key)).find((message) => message.role === "toolResult");
    const accepted = JSON.parse(JSON.stringify(result?.content)).at?.(0)?.text ?? "";
    const details = JSON.parse(accepted) as Record<string, unknown>;
    expect(details).toMatchObject({ status: "accepted", expectsCompletionMessage: true });
    expect(details).not.toHaveProperty("note");
    const child = String(details.childSessionKey);
    const [completion] = await completionsAfter(key, [key, child]);
    expect(completion?.provenance).toMatchObject({ kind: "subagent_completion", sourceSessionKey: child });
    const runs = await storedRuns(key);
    expect(runs).toHaveLength(2);
    expect(runs[1]?.context).toBe(NESTED_COMPLETION_CONTEXT);
  });

  it("sessions_send from a cron session has maxPingPongTurns 0: the target's reply is not sent back to it", async () => {
    const { key } = await cronRun("relay", "ping");
    const target = `agent:relay:cron-target-${uid()}`;
    await createSpawned({ sessionKey: target, agentId: "relay", spawnedBy: key });
    // What the tool puts on the queue: the configured 2 turns (test-config) are 0 for a cron requester.
    const { ctx, queued } = capturingContext(requesterFor(key));
    await sendWith(ctx, { sessionKey: target, message: "captured", timeoutSeconds: 0 });
    expect(queued[0]).toMatchObject({ turn: { flow: { requesterKey: key, maxTurns: 0 } } });
    // And for real, through the queue: the target answers, and nothing comes back to the cron session.
    const sent = await send(key, { sessionKey: target, message: "status please", timeoutSeconds: 0 });
    expect(sent).toMatchObject({ status: "accepted" });
    await driveUntil([target], () => findRun(sent.runId), "the send to arrive");
    expect(await waitRun(sent.runId)).toMatchObject({ status: "ok", reply: "relay got: status please" });
    await runAlarms([target, key], 3);
    expect(await storedRuns(key)).toHaveLength(1);
    expect((await transcript(key)).filter((message) => message.role === "user")).toHaveLength(1);
  });

  it("OpenClaw #106517: a completion owed to a cron run session that was deleted fails cleanly, once, and nothing comes back", async () => {
    const { key, jobId } = await cronRun("spawner", "ping");
    const spawned = await callTool<{ childSessionKey: string; runId: string; note?: string }>(
      "sessions_spawn",
      key,
      { task: "long errand", agentId: "hook-async" },
    );
    expect(spawned.status, spawned.text).toBe(200);
    expect(spawned.json.note).toBeUndefined();
    const child = spawned.json.childSessionKey;
    // The run session's retention passes while the child works: the scheduler deletes it.
    await inScheduler("spawner", (sql) => {
      sql.exec("UPDATE cron_cleanup SET delete_at = ? WHERE session_key = ?", Date.now() - 1, key);
    });
    await runSchedulerAlarm("spawner");
    expect(await session(key).describe()).toMatchObject({ ok: false, code: "not_found" });
    await answerDeferred(child, "errand done", [child]);
    const [record] = await driveUntil(
      [child],
      async () => {
        const found = await completionRecords(child);
        return found[0]?.status === "failed" ? found : undefined;
      },
      "the completion's record to fail",
    );
    expect(record?.lastError).toContain("no session left to take it");
    await runAlarms([child], 3);
    expect(await completionRecords(child)).toHaveLength(1);
    expect(await outboxSize(child)).toBe(0);
    // Nothing brought the deleted run session back, and the job's history is as it was.
    expect(await session(key).describe()).toMatchObject({ ok: false, code: "not_found" });
    expect(await jobRuns("spawner", jobId)).toHaveLength(1);
  });
});
