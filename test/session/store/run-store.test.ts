import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { findRun, markRunEnded, toRunRecord } from "../../../src/session/store/run-store";
import { createSession, stub, uid } from "../../support";

/** Ends a fresh run row with this usage and answering model, and reads it back as the public run. */
async function endedWith(ending: Parameters<typeof markRunEnded>[2]) {
  const key = `agent:main:run-store-${uid()}`;
  await createSession({ agentId: "main", key });
  const runId = crypto.randomUUID();
  return runInDurableObject(stub(key), (_instance, state) => {
    const { sql } = state.storage;
    sql.exec(
      "INSERT INTO run (run_id, status, timeout_ms, created_at, attempts) VALUES (?, 'running', 60000, ?, 1)",
      runId,
      ending.endedAt,
    );
    markRunEnded(sql, runId, ending);
    const row = findRun(sql, runId);
    if (!row) throw new Error("the run row is gone");
    return toRunRecord(row, key);
  });
}

describe("a run's usage as the run store keeps it (SPEC §20)", () => {
  it("keeps cache tokens, estimated cost and the model and provider that answered", async () => {
    const run = await endedWith({
      status: "ok",
      endedAt: Date.now(),
      usage: { input: 10, output: 5, total: 45, cacheRead: 20, cacheWrite: 10, estimatedCostUsd: 0.0125 },
      model: "claude-fallback",
      provider: "anthropic",
    });
    expect(run.usage).toEqual({
      input: 10,
      output: 5,
      total: 45,
      cacheRead: 20,
      cacheWrite: 10,
      estimatedCostUsd: 0.0125,
    });
    expect(run).toMatchObject({ model: "claude-fallback", provider: "anthropic" });
  });

  it("leaves out what was not reported: no cache fields, no cost, no model (never zeros)", async () => {
    const run = await endedWith({
      status: "error",
      endedAt: Date.now(),
      usage: { input: 3, output: 0, total: 3 },
      error: "model API answered HTTP 400",
    });
    expect(run.usage).toEqual({ input: 3, output: 0, total: 3 });
    expect(run.model).toBeUndefined();
    expect(run.provider).toBeUndefined();
  });
});
