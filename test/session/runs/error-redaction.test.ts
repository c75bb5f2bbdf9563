import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { maskSecret } from "../../../src/history/redact";
import { findRun } from "../../../src/session/store/run-store";
import { recordRunEnding } from "../../../src/session/writes/run-ending";
import {
  ADMIN,
  call,
  createSession,
  createSpawned,
  fakeModelKey,
  getRun,
  send,
  sendMessage,
  session,
  showsSecret,
  stub,
  toolWithConfig,
  uid,
  waitRun,
  webhookPosts,
  workerConfig,
  workerConfigWith,
} from "../../support";
import { requester, spawnOk, subagents } from "../../support/subagents";

// Every face of a run's end (SPEC §5.2 step 2 applied to what leaves the service): a model that quotes the
// API key it refuses, a webhook agent that quotes its run token, a reply that carries a secret.

/** A run of the `model-auth-echo` agent in a session of its own: it fails, its error quoting the key. */
async function refusedRun(prefix: string): Promise<{ key: string; runId: string }> {
  const key = `agent:model-auth-echo:${prefix}-${uid()}`;
  await createSession({ agentId: "model-auth-echo", key });
  return { key, runId: await sendMessage(key, "hello") };
}

/** Checks an error quotes the model key masked, and shows no more of it than the mask does. */
function expectKeyMasked(error: string | undefined): void {
  expect(error).toContain(`Incorrect API key provided: ${maskSecret(fakeModelKey())}`);
  expect(showsSecret(error ?? "", fakeModelKey()), error).toBe(false);
}

describe("run errors are redacted on every face", () => {
  it("a model key quoted in an error: masked in the run, its wait and the console's runs region", async () => {
    const { key, runId } = await refusedRun("redact-run");
    const waited = await waitRun(runId);
    expect(waited).toMatchObject({ status: "error", runStatus: "error" });
    expectKeyMasked(waited.error);
    expectKeyMasked((await getRun(runId)).error);
    const region = await call("GET", `/console/fragments/sessions/${encodeURIComponent(key)}/runs`, {
      token: ADMIN,
    });
    expect(region.status).toBe(200);
    expect(region.text).toContain(maskSecret(fakeModelKey()));
    expect(showsSecret(region.text, fakeModelKey())).toBe(false);
  });

  it("sessions_send: the error a caller of another agent waits for has the target's model key masked", async () => {
    const config = workerConfigWith((changed) => {
      changed.tools.sessions.visibility = "all";
      changed.tools.agentToAgent = { enabled: true, allow: ["*"] };
    });
    const caller = `agent:main:redact-caller-${uid()}`;
    const target = `agent:model-auth-echo:redact-target-${uid()}`;
    await createSession({ agentId: "main", key: caller });
    await createSession({ agentId: "model-auth-echo", key: target });
    const result = await toolWithConfig(config, "sessions_send", caller, {
      sessionKey: target,
      message: "hello",
      timeoutSeconds: 10,
    });
    expect(result).toMatchObject({ status: "error", sessionKey: target, sentBeforeError: true });
    expectKeyMasked((result as { error?: string }).error);
  });

  it("subagents wait: the error is masked before it is cut to 120 characters", async () => {
    const r = await requester("spawner", "redact-wait");
    const { runId } = await spawnOk(r, { task: "say hello", agentId: "model-auth-echo" });
    const waited = await subagents(r, { action: "wait", runIds: [runId], timeoutSeconds: 15 });
    expect(waited).toMatchObject({ reason: "completed", runs: [{ runId, status: "failed" }] });
    const error = waited.runs[0]?.outcome?.error ?? "";
    expect(error.length).toBeLessThanOrEqual(120);
    expectKeyMasked(error);
  });

  it("a webhook agent's run token quoted in its error: masked in the run", async () => {
    const key = `agent:hook-echo-token:redact-${uid()}`;
    await createSession({ agentId: "hook-echo-token", key });
    const runId = await sendMessage(key, "hello");
    const waited = await waitRun(runId);
    expect(waited).toMatchObject({ status: "error" });
    const [post] = await webhookPosts("hook-echo-token", key);
    const token = post?.runToken ?? "";
    expect(token).toMatch(/^sbr1\./);
    for (const error of [waited.error, (await getRun(runId)).error]) {
      expect(error).toContain(`run token refused: ${maskSecret(token)}`);
      expect(showsSecret(error ?? "", token), error).toBe(false);
    }
  });

  it("an error of any origin is masked when the run's end is recorded", async () => {
    const key = `agent:main:redact-record-${uid()}`;
    await createSession({ agentId: "main", key });
    const runId = crypto.randomUUID();
    await runInDurableObject(stub(key), (_instance, state) => {
      const sql = state.storage.sql;
      sql.exec(
        "INSERT INTO run (run_id, status, timeout_ms, created_at, started_at) VALUES (?, 'running', 60000, ?, ?)",
        runId,
        Date.now(),
        Date.now(),
      );
      const row = findRun(sql, runId);
      if (!row) throw new Error("the run was not written");
      state.storage.transactionSync(() =>
        recordRunEnding(sql, workerConfig(), row, {
          status: "error",
          error: "failed with OPENAI_API_KEY=sk-1234567890abcdef1234",
          messages: [],
        }),
      );
    });
    expect(await session(key).getRun(runId)).toMatchObject({
      ok: true,
      value: { status: "error", error: "failed with OPENAI_API_KEY=sk-123…1234" },
    });
  });
});

describe("replies are the safe view", () => {
  it("a secret in the target's reply is masked in the waited sessions_send reply and the run", async () => {
    const u = uid();
    const caller = `agent:relay:redact-r-${u}`;
    const target = `agent:relay:redact-t-${u}`;
    await createSession({ agentId: "relay", key: caller });
    await createSpawned({ sessionKey: target, agentId: "relay", spawnedBy: caller });
    const secret = "sk-1234567890abcdef1234";
    const result = await send(caller, { sessionKey: target, message: `use ${secret}`, timeoutSeconds: 5 });
    expect(result).toMatchObject({ status: "ok", reply: "relay got: use sk-123…1234" });
    expect((await getRun(result.runId)).reply).toBe("relay got: use sk-123…1234");
  });
});
