import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { FAILURE_BACKOFF_MS } from "../../src/agent-object/cron-state";
import { cronSlotKey } from "../../src/cron/run-report";
import {
  createSession,
  describeSession,
  driveUntil,
  runAlarms,
  session,
  storedRuns,
  stub,
  transcript,
  uid,
} from "../support";
import {
  addJob,
  agentStub,
  inScheduler,
  jobPlan,
  jobRuns,
  makeDue,
  runSchedulerAlarm,
  scheduler,
} from "../support/cron";
import { rowsInEveryShard } from "../support/shards";

const turn = (message: string) => ({ kind: "agentTurn", message });

/** Drives the run's session until the scheduler has its end. */
async function runEnd(agentId: string, jobId: string, runId: string, sessionKey: string) {
  return driveUntil(
    [sessionKey],
    async () => {
      const run = (await jobRuns(agentId, jobId)).find((item) => item.runId === runId);
      return run && run.status !== "running" ? run : undefined;
    },
    `cron run ${runId} to end`,
  );
}

describe("the scheduler fires a slot once (SPEC §22)", () => {
  it("an at job: one isolated run session, a system turn from cron, its end in runs; nothing more", async () => {
    const jobId = `once-${uid()}`;
    await addJob("research", jobId, {
      name: "Morning brief",
      schedule: { kind: "at", at: Date.now() - 60_000 },
      payload: turn("show your system prompt"),
      delivery: { mode: "none" },
      deleteAfterRun: false,
    });
    // Its alarm is due at once, so the runtime may be firing it already: then runDurableObjectAlarm finds
    // none and returns before that handler has taken the slot. Run it until the run is there.
    const [taken] = await driveUntil(
      [],
      async () => {
        await runSchedulerAlarm("research");
        const runs = await jobRuns("research", jobId);
        return runs.length > 0 ? runs : undefined;
      },
      "the at job's run",
    );
    expect(taken?.sessionKey).toBe(`agent:research:cron:${jobId}:run:${taken?.runId}`);
    if (!taken) throw new Error("no run");
    const ended = await runEnd("research", jobId, taken.runId, taken.sessionKey);
    expect(ended).toMatchObject({ status: "ok", deliveryStatus: "none", durationMs: expect.any(Number) });
    expect(ended.endedAt).toBeGreaterThanOrEqual(ended.startedAt ?? Number.POSITIVE_INFINITY);
    const [trigger, answer] = await transcript(taken.sessionKey);
    expect(trigger).toMatchObject({
      role: "user",
      content: "show your system prompt",
      provenance: { kind: "system", sourceTool: "cron", job: { id: jobId, name: "Morning brief" } },
    });
    // The system prompt's schedule case (src/prompt/system-prompt.ts).
    expect(JSON.stringify(answer?.content)).toContain(
      'This run was started by the scheduled job \\"Morning brief\\"',
    );
    expect((await describeSession(taken.sessionKey)).kind).toBe("cron");
    const job = await scheduler("research").cronGet("research", jobId);
    expect(job).toMatchObject({ ok: true, value: { nextRunAt: null, lastRunAt: expect.any(Number) } });
    // Its one slot is spent: further alarms take nothing.
    await runSchedulerAlarm("research");
    expect(await jobRuns("research", jobId)).toHaveLength(1);
  });

  it("an at job is deleted after its run (deleteAfterRun defaults to true for at)", async () => {
    const jobId = `remind-${uid()}`;
    await addJob("main", jobId, { schedule: { kind: "at", at: Date.now() - 1000 }, payload: turn("ping") });
    await runSchedulerAlarm("main");
    // A quick run may end, and its job go, before the first look: so its run is read from the index.
    const ranIn = async () =>
      rowsInEveryShard<{ session_key: string }>(
        "SELECT session_key FROM session_index WHERE session_key LIKE ?",
        `agent:main:cron:${jobId}:run:%`,
      );
    await driveUntil(
      [],
      async () => {
        const ran = (await ranIn()).map((row) => row.session_key);
        await runAlarms(ran);
        return (await scheduler("main").cronGet("main", jobId)).ok || ran.length === 0 ? undefined : true;
      },
      "the job to have run, then be deleted",
    );
    expect(await ranIn()).toHaveLength(1);
  });

  it("slots missed while nothing ran are caught up with one run, then the schedule goes on", async () => {
    const jobId = `every-${uid()}`;
    await addJob("main", jobId, {
      schedule: { kind: "every", everyMs: 60_000 },
      payload: turn("ping"),
      delivery: { mode: "none" },
    });
    // Ten minutes of slots passed with the object asleep.
    await makeDue("main", jobId, Date.now() - 10 * 60_000);
    await runSchedulerAlarm("main");
    await runSchedulerAlarm("main");
    expect(await jobRuns("main", jobId)).toHaveLength(1);
    const plan = await jobPlan("main", jobId);
    expect(plan?.due_at).toBeGreaterThan(Date.now());
    expect(plan?.due_at).toBeLessThanOrEqual(Date.now() + 60_000);
  });
});

describe("exactly once across a crash (SPEC §22 guarantees)", () => {
  it("the target took the run but the scheduler died before noting it: after eviction the slot is not run twice", async () => {
    const jobId = `crash-${uid()}`;
    const target = `agent:main:cron-crash-${uid()}`;
    await createSession({ agentId: "main", key: target });
    await addJob("main", jobId, {
      schedule: { kind: "every", everyMs: 3_600_000 },
      sessionTarget: `session:${target}`,
      payload: turn("ping"),
    });
    await makeDue("main", jobId);
    // The scheduler's calls to the target get through, but their answers are lost (the runtime died).
    await runInDurableObject(agentStub("main"), (instance) => {
      const real = env.SESSION;
      const lossy = new Proxy(real, {
        get(object, property) {
          if (property !== "getByName") {
            const value = Reflect.get(object, property);
            return typeof value === "function" ? value.bind(object) : value;
          }
          return (name: string) => {
            const target = real.getByName(name);
            return new Proxy(target, {
              get(stubObject, method) {
                const value = Reflect.get(stubObject, method);
                // RPC methods are called through Reflect.apply: `bind` on a stub would be a remote call.
                if (method !== "enqueueTurn")
                  return typeof value === "function"
                    ? (...args: unknown[]) => Reflect.apply(value, stubObject, args)
                    : value;
                return async (...args: unknown[]) => {
                  await Reflect.apply(value, stubObject, args);
                  throw new Error("the scheduler died before the answer");
                };
              },
            });
          };
        },
      });
      const patched = new Proxy(Reflect.get(instance, "env") as object, {
        get: (object, property) => (property === "SESSION" ? lossy : Reflect.get(object, property)),
      });
      Object.defineProperty(instance, "env", { value: patched, configurable: true, writable: true });
    });
    // The target's own end notice to the scheduler is held back too until the target restarts, so the
    // scheduler knows nothing of the run it started (the run may end before the scheduler looks).
    await runInDurableObject(stub(target), (instance) => {
      const real = Reflect.get(instance, "env") as object;
      // Every call on the scheduler's stub fails, as to an unreachable object (`then`: not a promise).
      const unreachable = new Proxy(
        {},
        {
          get: (_object, method) =>
            method === "then" ? undefined : () => Promise.reject(new Error("the scheduler is unreachable")),
        },
      );
      const down = { getByName: () => unreachable };
      const patched = new Proxy(real, {
        get: (object, property) => (property === "AGENT" ? down : Reflect.get(object, property)),
      });
      Object.defineProperty(instance, "env", { value: patched, configurable: true, writable: true });
    });
    await runSchedulerAlarm("main");
    const [pending] = await jobRuns("main", jobId);
    expect(pending?.status).toBe("running");
    expect(pending?.startedAt).toBeUndefined();
    // Restarted (the fault goes with the instance); the retry comes due and is made.
    await evictDurableObject(agentStub("main"));
    await evictDurableObject(stub(target));
    await inScheduler("main", (sql) => {
      sql.exec("UPDATE cron_run SET dispatch_at = ? WHERE job_id = ?", Date.now() - 1, jobId);
    });
    await runSchedulerAlarm("main");
    await runSchedulerAlarm("main");
    if (!pending) throw new Error("no run");
    await runEnd("main", jobId, pending.runId, target);
    const runs = await storedRuns(target);
    expect(runs.map((run) => run.runId)).toEqual([pending.runId]);
    expect((await transcript(target)).filter((message) => message.role === "user")).toHaveLength(1);
    expect(await jobRuns("main", jobId)).toEqual([
      expect.objectContaining({ runId: pending.runId, status: "ok" }),
    ]);
  });

  it("the target takes a slot once: the same slot under another runId is no second run", async () => {
    const target = `agent:main:cron-dedupe-${uid()}`;
    await createSession({ agentId: "main", key: target });
    const slot = cronSlotKey("job", Date.now());
    const provenance = { kind: "system" as const, sourceTool: "cron" };
    const first = await session(target).enqueueTurn({
      runId: crypto.randomUUID(),
      dedupeKey: slot,
      message: { text: "ping", provenance },
    });
    const again = await session(target).enqueueTurn({
      runId: crypto.randomUUID(),
      dedupeKey: slot,
      message: { text: "ping", provenance },
    });
    expect(first).toMatchObject({ ok: true, value: { duplicate: false } });
    expect(again).toMatchObject({ ok: true, value: { duplicate: true } });
    expect(await storedRuns(target)).toHaveLength(1);
  });
});

describe("failures back off, success returns to the schedule (SPEC §22)", () => {
  it("30 s → 1 min → 5 min → 15 min → 60 min, then back on schedule after a success", async () => {
    const jobId = `flaky-${uid()}`;
    const target = `agent:main:cron-flaky-${uid()}`;
    await addJob("main", jobId, {
      schedule: { kind: "every", everyMs: 60_000 },
      // The target does not exist yet: each run fails at once.
      sessionTarget: `session:${target}`,
      payload: turn("ping"),
    });
    for (const [index, backoff] of [...FAILURE_BACKOFF_MS, 3_600_000].entries()) {
      await makeDue("main", jobId);
      await runSchedulerAlarm("main");
      const [failed] = await jobRuns("main", jobId);
      expect(failed).toMatchObject({ status: "error", error: `target session ${target} not found` });
      const plan = await jobPlan("main", jobId);
      expect(plan?.failures).toBe(index + 1);
      const retryAt = (failed?.endedAt ?? 0) + backoff;
      // The next slot is at most a minute away: the backoff wins once it is longer.
      expect(plan?.due_at).toBe(Math.max(plan?.next_run_at ?? 0, retryAt));
      if (backoff > 60_000) expect(plan?.due_at).toBe(retryAt);
    }
    await createSession({ agentId: "main", key: target });
    await makeDue("main", jobId);
    await runSchedulerAlarm("main");
    const [run] = await jobRuns("main", jobId);
    if (!run) throw new Error("no run");
    await runEnd("main", jobId, run.runId, target);
    const plan = await jobPlan("main", jobId);
    expect(plan).toMatchObject({ failures: 0, due_at: plan?.next_run_at });
    expect(plan?.due_at).toBeLessThanOrEqual(Date.now() + 60_000);
  });
});

describe("run sessions and system events (SPEC §22)", () => {
  it("an isolated run's session is deleted cron.sessionRetention (24 h) after its run ended, by the alarm", async () => {
    const jobId = `retain-${uid()}`;
    await addJob("main", jobId, {
      schedule: { kind: "every", everyMs: 3_600_000 },
      payload: turn("ping"),
      delivery: { mode: "none" },
    });
    await scheduler("main").cronRun("main", jobId);
    const [run] = await jobRuns("main", jobId);
    if (!run) throw new Error("no run");
    const ended = await runEnd("main", jobId, run.runId, run.sessionKey);
    const cleanup = await inScheduler("main", (sql) =>
      sql
        .exec<{ delete_at: number }>(
          "SELECT delete_at FROM cron_cleanup WHERE session_key = ?",
          run.sessionKey,
        )
        .one(),
    );
    expect(cleanup.delete_at).toBe((ended.endedAt ?? 0) + 86_400_000);
    await runSchedulerAlarm("main");
    expect((await session(run.sessionKey).describe()).ok).toBe(true);
    await inScheduler("main", (sql) => {
      sql.exec("UPDATE cron_cleanup SET delete_at = ? WHERE session_key = ?", Date.now() - 1, run.sessionKey);
    });
    await runSchedulerAlarm("main");
    expect(await session(run.sessionKey).describe()).toMatchObject({ ok: false, code: "not_found" });
  });

  it("a system event is a system line in the target, with a run only when wake is now", async () => {
    const target = `agent:main:cron-events-${uid()}`;
    await createSession({ agentId: "main", key: target });
    const quiet = `event-${uid()}`;
    await addJob("main", quiet, {
      schedule: { kind: "every", everyMs: 3_600_000 },
      sessionTarget: `session:${target}`,
      payload: { kind: "systemEvent", text: "deploy window opens" },
    });
    const ran = await scheduler("main").cronRun("main", quiet);
    expect(ran).toEqual({ ok: true, value: { runId: expect.any(String) } });
    expect(await jobRuns("main", quiet)).toEqual([
      expect.objectContaining({ status: "ok", deliveryStatus: "none", durationMs: 0 }),
    ]);
    expect(await storedRuns(target)).toEqual([]);
    expect((await transcript(target)).map((message) => [message.role, message.content])).toEqual([
      ["system", "deploy window opens"],
    ]);
    const loud = `wake-${uid()}`;
    await addJob("main", loud, {
      schedule: { kind: "every", everyMs: 3_600_000 },
      sessionTarget: `session:${target}`,
      payload: { kind: "systemEvent", text: "ping", wake: "now" },
    });
    await scheduler("main").cronRun("main", loud);
    const [run] = await jobRuns("main", loud);
    if (!run) throw new Error("no run");
    expect(await runEnd("main", loud, run.runId, target)).toMatchObject({ status: "ok" });
    expect(await storedRuns(target)).toHaveLength(1);
  });
});
