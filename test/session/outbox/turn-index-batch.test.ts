import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { SessionObject } from "../../../src/session/session-object";
import {
  ADMIN,
  call,
  countingShards,
  createSession,
  driveUntil,
  evict,
  runAlarms,
  sessionPath,
  stub,
  uid,
} from "../../support";
import { shardOf } from "../../support/shards";

/** What the session object asked of D1: its batches (the statements of each) and its single statements. */
interface D1Calls {
  batches: number[];
  single: number;
  /** Set to make every D1 call fail, as an outage would. */
  down: boolean;
}

/**
 * Wraps the D1 bindings of the session's object instance (every index shard) to count its calls and to
 * fail them on demand. The wrapper lives in the instance: evicting it restores the real bindings.
 */
async function watchD1(key: string): Promise<D1Calls> {
  const calls: D1Calls = { batches: [], single: 0, down: false };
  await runInDurableObject(stub(key), (instance) => {
    const patched = countingShards(Reflect.get(instance, "env") as Env, (call) => {
      if (call.kind === "single") calls.single++;
      if (calls.down) throw new Error("D1 unavailable");
      if (call.kind === "batch") calls.batches.push(call.size);
    });
    Object.defineProperty(instance, "env", { value: patched, configurable: true, writable: true });
  });
  return calls;
}

/** The index entries the session still owes (its outbox), by kind. */
const owedIndexWrites = (key: string) =>
  runInDurableObject(stub(key), (_: SessionObject, state) =>
    state.storage.sql
      .exec<{ kind: string; attempts: number }>(
        `SELECT kind, attempts FROM outbox
         WHERE kind IN ('index_sync', 'run_index', 'search_index', 'delivery_index', 'search_forget')`,
      )
      .toArray(),
  );

/** What the index holds of the turn: its run row, the session's search rows, its row's preview. */
async function indexedTurn(key: string, runId: string) {
  const db = shardOf(key);
  const run = await db.prepare("SELECT session_key FROM run_index WHERE run_id = ?").bind(runId).first();
  const search = await db
    .prepare("SELECT role, text FROM search_message WHERE session_key = ? ORDER BY id")
    .bind(key)
    .all<{ role: string; text: string }>();
  const row = await db
    .prepare("SELECT status, last_run_id FROM session_index WHERE session_key = ?")
    .bind(key)
    .first<{ status: string; last_run_id: string }>();
  return { run, search: search.results, row };
}

/** A chat turn over REST: the message, then a wait that names the session (no run index read). */
async function chatTurn(key: string, text: string) {
  const sent = await call<{ runId: string }>("POST", sessionPath(key, "/messages"), {
    token: ADMIN,
    body: { text },
  });
  expect(sent.status, sent.text).toBe(202);
  const { runId } = sent.json;
  const waited = await call<{ status: string; reply: string }>("POST", `/v1/runs/${runId}/wait`, {
    token: ADMIN,
    body: { timeoutMs: 10_000, sessionKey: key },
  });
  expect(waited.status, waited.text).toBe(200);
  return { runId, waited: waited.json };
}

describe("one index write per turn (SPEC §24)", () => {
  it("a chat turn's session row, run row and search rows reach D1 in one batch after the turn", async () => {
    const key = `agent:relay:turn-batch-${uid()}`;
    await createSession({ agentId: "relay", key });
    await runAlarms([key]);
    const calls = await watchD1(key);
    const { runId, waited } = await chatTurn(key, "hello batch");
    expect(waited).toMatchObject({ status: "ok", reply: "relay got: hello batch" });
    // The run's end delivers its turn's index writes: nothing of them is owed once that batch is in.
    // No alarm is run meanwhile: the batch is the run's end's own.
    await driveUntil(
      [],
      async () => ((await owedIndexWrites(key)).length === 0 ? true : undefined),
      "the turn indexed",
    );
    expect(calls.batches).toHaveLength(1);
    expect(calls.single).toBe(0);
    expect(await indexedTurn(key, runId)).toEqual({
      run: { session_key: key },
      search: [
        { role: "user", text: "hello batch" },
        { role: "assistant", text: "relay got: hello batch" },
      ],
      row: { status: "done", last_run_id: runId },
    });
  });

  it("a turn whose batch fails keeps every write owed, through an eviction, until D1 takes it", async () => {
    const key = `agent:relay:turn-crash-${uid()}`;
    await createSession({ agentId: "relay", key });
    await runAlarms([key]);
    const calls = await watchD1(key);
    calls.down = true;
    const { runId } = await chatTurn(key, "kept through a crash");
    // The turn was answered; its index writes failed and wait in the outbox, none lost.
    const owed = await driveUntil(
      [],
      async () => {
        const entries = await owedIndexWrites(key);
        return entries.some((entry) => entry.kind === "search_index" && entry.attempts > 0)
          ? entries
          : undefined;
      },
      "the failed batch recorded",
    );
    expect(new Set(owed.map((entry) => entry.kind))).toEqual(
      new Set(["index_sync", "run_index", "search_index"]),
    );
    expect((await indexedTurn(key, runId)).run).toBeNull();
    // The instance dies (its failing bindings with it); the alarm of the next one delivers the lot.
    await evict(key);
    await driveUntil(
      [key],
      async () => ((await owedIndexWrites(key)).length === 0 ? true : undefined),
      "delivered",
    );
    expect(await indexedTurn(key, runId)).toMatchObject({
      run: { session_key: key },
      search: [{ role: "user" }, { role: "assistant" }],
      row: { status: "done", last_run_id: runId },
    });
  });

  it("a run found by its id alone once its row is indexed, and by its session at once", async () => {
    const key = `agent:relay:turn-lookup-${uid()}`;
    await createSession({ agentId: "relay", key });
    const { runId } = await chatTurn(key, "find me");
    const byId = await call<{ runId: string; sessionKey: string }>("GET", `/v1/runs/${runId}`, {
      token: ADMIN,
    });
    expect(byId.status, byId.text).toBe(200);
    expect(byId.json).toMatchObject({ runId, sessionKey: key });
    const elsewhere = await call("POST", `/v1/runs/${runId}/wait`, {
      token: ADMIN,
      body: { timeoutMs: 0, sessionKey: "agent:relay:not-this-one" },
    });
    expect(elsewhere.status).toBe(404);
    const bad = await call<{ error: { message: string } }>("POST", `/v1/runs/${runId}/wait`, {
      token: ADMIN,
      body: { timeoutMs: 0, sessionKey: "not a key" },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.error.message).toMatch(/sessionKey/);
  });
});
