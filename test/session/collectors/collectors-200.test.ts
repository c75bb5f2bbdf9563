import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { runAlarms, session, storedRuns, stub, tool } from "../../support";
import { requester, spawn } from "../../support/subagents";
import { members } from "./collector-table";

/*
 * The one test that takes 20 s or more (200 children, each run and answered): a vitest project of its own
 * (SLOW in vitest.config.ts), so the shared and fresh projects stay quick; `npm test` runs it too.
 */

const agentsWait = (key: string, args: Record<string, unknown>) => tool("agents_wait", key, args);

describe("collectors at scale (SPEC §15)", () => {
  it("runs a 200-child group with maxConcurrent 8: never more than 8 running, all collected once", async () => {
    const r = await requester("swarm", "collect-200");
    const spawned = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        spawn(r, { task: `item ${i}`, label: `item-${i}`, collect: true, groupId: "big" }),
      ),
    );
    expect(
      spawned.every((s) => s.status === "accepted" && s.childSessionKey.startsWith("agent:hook-async:")),
    ).toBe(true);
    const ids = spawned.map((s) => s.runId);
    const answered = new Set<string>();
    let maxRunning = 0;
    for (;;) {
      const rows = await members(r);
      const running = rows.filter((m) => m.state === "running");
      maxRunning = Math.max(maxRunning, running.length);
      expect(running.length).toBeLessThanOrEqual(8);
      if (rows.every((m) => m.state === "ended")) break;
      // Each running member's child is answered once, when its run waits for the agent.
      const answering = await Promise.all(
        running
          .filter((m) => !answered.has(m.run_id))
          .map(async (m) => {
            const runs = await storedRuns(m.child_key);
            if (!runs.some((run) => run.runId === m.run_id && run.status === "running" && run.deferred === 1))
              return false;
            answered.add(m.run_id);
            const done = await session(m.child_key).completeDeferredRun(m.run_id, {
              text: `done ${m.run_id}`,
            });
            expect(done).toMatchObject({ ok: true });
            return true;
          }),
      );
      // Nothing to answer yet: let the sessions' alarms move what is due.
      if (!answering.includes(true)) await runAlarms([r, ...running.map((m) => m.child_key)]);
    }
    expect(maxRunning).toBe(8);
    // FIFO: members started in the order they were admitted.
    const starts = await runInDurableObject(stub(r), (_i, state) =>
      state.storage.sql
        .exec<{ started_at: number }>("SELECT started_at FROM collector ORDER BY seq")
        .toArray()
        .map((row) => row.started_at),
    );
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
    const all = await agentsWait(r, { ids, timeoutSeconds: 0 });
    expect(all.completed).toHaveLength(200);
    expect(new Set(all.completed.map((item) => item.runId)).size).toBe(200);
    for (const item of all.completed)
      expect(item).toMatchObject({ status: "done", result: `done ${item.runId}` });
    expect(all.pending).toEqual([]);
  }, 120_000);
});
