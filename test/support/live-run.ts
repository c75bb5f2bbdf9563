import { runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";

/**
 * A run in flight in `sessionKey` (created, as the operator, if it does not exist yet), for a test that
 * needs a run token: a run token acts only while its run lives. The run waits for a deferred result,
 * an hour away from its deadline, so nothing executes it and it stays in flight through the test.
 */
export async function liveRun(sessionKey: string, agentId: string): Promise<string> {
  const created = await exports.default.fetch("http://switchboard.test/v1/sessions", {
    method: "POST",
    headers: { Authorization: "Bearer test-admin-token", "Content-Type": "application/json" },
    body: JSON.stringify({ agentId, key: sessionKey }),
  });
  if (created.status !== 201 && created.status !== 409)
    throw new Error(`create ${sessionKey}: HTTP ${created.status} ${await created.text()}`);
  const runId = crypto.randomUUID();
  const now = Date.now();
  await runInDurableObject(env.SESSION.getByName(sessionKey), (_instance, state) => {
    state.storage.sql.exec(
      `INSERT INTO run (run_id, status, deferred, timeout_ms, created_at, started_at, deadline_at, attempts)
       VALUES (?, 'running', 1, 3600000, ?, ?, ?, 1)`,
      runId,
      now,
      now,
      now + 3_600_000,
    );
  });
  return runId;
}
