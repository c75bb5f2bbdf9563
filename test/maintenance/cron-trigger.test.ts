import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { MAINTENANCE_EVERY_MS } from "../../src/agent-object/scheduler";
import worker from "../../src/index";
import { getSession, idleSession } from "../support";
import { inScheduler, runSchedulerAlarm, scheduler } from "../support/cron";

// FRESH_STATE (vitest.config.ts): storage of this file's own, so no other test woke these agents' objects.

const DAY = 86_400_000;

const meta = (agentId: string, key: string) =>
  inScheduler(
    agentId,
    (sql) =>
      sql.exec<{ value: string }>("SELECT value FROM cron_meta WHERE key = ?", key).toArray()[0]?.value,
  );

/** The Worker's cron trigger firing now, as the platform calls it (wrangler.toml [triggers]). */
async function cronFires(): Promise<void> {
  const ctx = createExecutionContext();
  await worker.scheduled(
    createScheduledController({ cron: "17 3 * * *", scheduledTime: Date.now() }),
    env,
    ctx,
  );
  await waitOnExecutionContext(ctx);
}

describe("the daily cron trigger (SPEC §23): every configured agent's maintenance pass", () => {
  it("makes the pass of an agent whose object nothing woke, once a day, not again by its alarm", async () => {
    const agentId = "research";
    const old = await idleSession(agentId, 40);
    const fresh = await idleSession(agentId, 0);
    // Never woken: the object has not even learnt its agent, so its own alarm would never make the pass.
    expect(await meta(agentId, "agent_id")).toBeUndefined();

    const fired = Date.now();
    await cronFires();
    expect((await getSession(old)).status).toBe(404);
    expect((await getSession(fresh)).status).toBe(200);
    expect(Number(await meta(agentId, "maintenance_last"))).toBeGreaterThanOrEqual(fired);
    const next = Number(await meta(agentId, "maintenance_at"));
    expect(next).toBeGreaterThanOrEqual(fired + MAINTENANCE_EVERY_MS);

    // The same day, a second cron and the object's alarm both leave a newly idle session alone.
    const later = await idleSession(agentId, 40);
    await cronFires();
    await runSchedulerAlarm(agentId);
    expect((await getSession(later)).status).toBe(200);
    expect(Number(await meta(agentId, "maintenance_at"))).toBe(next);

    // A day later (the last pass's time moved back a day; no sleeping), the cron makes the next pass.
    await inScheduler(agentId, (sql) => {
      sql.exec("UPDATE cron_meta SET value = ? WHERE key = 'maintenance_last'", String(Date.now() - DAY));
    });
    await cronFires();
    expect((await getSession(later)).status).toBe(404);
    // A bound, not a timing: each cron makes the pass of every agent of the test configuration (dozens).
  }, 60_000);

  it("skips an agent whose alarm made the day's pass", async () => {
    const agentId = "ops";
    await scheduler(agentId).cronSync(agentId);
    // The alarm's pass comes due (its stored due time moved into the past) and runs.
    await inScheduler(agentId, (sql) => {
      sql.exec("UPDATE cron_meta SET value = ? WHERE key = 'maintenance_at'", String(Date.now() - 1000));
    });
    expect(await runSchedulerAlarm(agentId)).toBe(true);
    const last = await meta(agentId, "maintenance_last");
    expect(last).toBeDefined();

    const idle = await idleSession(agentId, 40);
    await cronFires();
    expect((await getSession(idle)).status).toBe(200);
    expect(await meta(agentId, "maintenance_last")).toBe(last);
  });
});
