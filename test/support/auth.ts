import { runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { deriveKey } from "../../src/auth/purpose-keys";
import { mintRunToken, type RunTokenClaims } from "../../src/auth/run-token";

/** The operator token vitest.config.ts binds as SWITCHBOARD_ADMIN_TOKEN. */
export const ADMIN = "test-admin-token";

/** The agent tokens vitest.config.ts binds as SWITCHBOARD_AGENT_TOKENS. */
export const AGENT_TOKENS = {
  main: "test-main-token",
  research: "test-research-token",
  ops: "test-ops-token",
  public: "test-public-token",
} as const;

/** The test binding SWITCHBOARD_SIGNING_KEY: the root of every derived key (run tokens, channels). */
export const SIGNING_KEY = "test-signing-key-0123456789abcdef";

/** The secret the service derives for a channel without `secretEnv`: signs its posts both ways. */
export const channelSecret = (channel: string) => deriveKey(SIGNING_KEY, { use: "channel", channel });

/** The secret the service derives for a webhook agent without `secretEnv`. */
export const webhookAgentSecret = (agentId: string) =>
  deriveKey(SIGNING_KEY, { use: "webhook-agent", agentId });

/**
 * A run token for a run in flight in `sessionKey` (agent `main`, depth 0, not sandboxed unless told),
 * valid ten minutes: a run token acts only while its run lives, so the run is made first (liveRun).
 */
export async function runToken(claims: Partial<RunTokenClaims> & { sessionKey: string }): Promise<string> {
  return mintRunToken(SIGNING_KEY, {
    agentId: "main",
    runId: await liveRun(claims.sessionKey, claims.agentId ?? "main"),
    depth: 0,
    sandboxed: false,
    exp: Math.floor(Date.now() / 1000) + 600,
    ...claims,
  });
}

/**
 * A run in flight in `sessionKey` (created, as the operator, if it does not exist yet), for a test that
 * needs a run token: a run token acts only while its run lives. The run waits for a deferred result,
 * an hour away from its deadline, so nothing executes it and it stays in flight through the test.
 */
export async function liveRun(sessionKey: string, agentId: string): Promise<string> {
  const created = await exports.default.fetch("http://switchboard.test/v1/sessions", {
    method: "POST",
    headers: { Authorization: `Bearer ${ADMIN}`, "Content-Type": "application/json" },
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
