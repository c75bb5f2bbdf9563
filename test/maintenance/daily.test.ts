import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { MAINTENANCE_EVERY_MS } from "../../src/agent-object/scheduler";
import { getSession, idleSession } from "../support";
import { agentStub, inScheduler, runSchedulerAlarm, scheduler } from "../support/cron";

// FRESH_STATE (vitest.config.ts): the daily pass enforces, deleting every idle session of the agent.

const maintenanceAt = (agentId: string) =>
  inScheduler(agentId, (sql) =>
    Number(
      sql.exec<{ value: string }>("SELECT value FROM cron_meta WHERE key = 'maintenance_at'").one().value,
    ),
  );
const alarmAt = (agentId: string) =>
  runInDurableObject(agentStub(agentId), (_instance, state) => state.storage.getAlarm());
/** As if a day had passed: the pass's stored due time moved into the past (no sleeping). */
const dayPasses = (agentId: string) =>
  inScheduler(agentId, (sql) => {
    sql.exec("UPDATE cron_meta SET value = ? WHERE key = 'maintenance_at'", String(Date.now() - 1000));
  });

describe("the daily maintenance pass (SPEC §23), from the agent object's alarm", () => {
  it("is armed a day ahead, runs when due (idle sessions deleted), then waits another day", async () => {
    const agentId = "research";
    const before = Date.now();
    await scheduler(agentId).cronSync(agentId);
    const armed = await maintenanceAt(agentId);
    expect(armed).toBeGreaterThanOrEqual(before + MAINTENANCE_EVERY_MS);
    // With no job, the object's one alarm is the pass's.
    expect(await alarmAt(agentId)).toBe(armed);

    const old = await idleSession(agentId, 40);
    const fresh = await idleSession(agentId, 0);
    // The alarm before the pass is due (a job's slot, say) leaves the sessions alone.
    await runInDurableObject(agentStub(agentId), (_instance, state) => state.storage.setAlarm(Date.now()));
    await runSchedulerAlarm(agentId);
    expect((await getSession(old)).status).toBe(200);
    expect(await maintenanceAt(agentId)).toBe(armed);

    await dayPasses(agentId);
    const ran = Date.now();
    expect(await runSchedulerAlarm(agentId)).toBe(true);
    expect((await getSession(old)).status).toBe(404);
    expect((await getSession(fresh)).status).toBe(200);
    const next = await maintenanceAt(agentId);
    expect(next).toBeGreaterThanOrEqual(ran + MAINTENANCE_EVERY_MS);
    expect(await alarmAt(agentId)).toBe(next);

    // A session idle since is left for the next day's pass.
    const later = await idleSession(agentId, 40);
    await runInDurableObject(agentStub(agentId), (_instance, state) => state.storage.setAlarm(Date.now()));
    await runSchedulerAlarm(agentId);
    expect((await getSession(later)).status).toBe(200);
  });
});
