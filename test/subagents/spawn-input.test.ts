import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ADMIN, type ApiError, call, storedRuns, stub, UUID, uid } from "../support";
import { childKeyOf, indexedChildren, NOTE, requester, settleAll, spawn } from "../support/subagents";

const DELIVERY =
  "not a spawn option: a sub-agent reports back to you; use sessions_send for channel delivery";

describe("sessions_spawn input errors", () => {
  /** A sessions_spawn the route refuses before the tool runs (400). */
  const post = (body: unknown, requesterKey: string) =>
    call<ApiError>("POST", "/v1/tools/sessions_spawn", {
      token: ADMIN,
      body,
      headers: { "X-Switchboard-Session": requesterKey },
    });

  it("channel-delivery params are a 400 naming the param and pointing to sessions_send", async () => {
    const r = await requester("main", "in-delivery");
    for (const name of [
      "target",
      "transport",
      "channel",
      "to",
      "threadId",
      "thread_id",
      "replyTo",
      "reply_to",
    ]) {
      const response = await post({ task: "t", [name]: "somewhere" }, r);
      expect(response.status, name).toBe(400);
      expect(response.json).toEqual({
        error: { code: "bad_request", message: `${name}: ${DELIVERY}` },
      });
    }
    const invoked = await call("POST", "/tools/invoke", {
      token: ADMIN,
      body: { tool: "sessions_spawn", sessionKey: r, args: { task: "t", replyTo: "x" } },
    });
    expect(invoked.status).toBe(400);
    expect(invoked.json).toEqual({
      ok: false,
      error: { type: "tool_error", message: `replyTo: ${DELIVERY}` },
    });
    expect(await indexedChildren(r)).toEqual([]);
  });

  it("a missing task is a 400; a bad mode or cleanup names its field", async () => {
    const r = await requester("main", "in-task");
    const missing = await post({ label: "x" }, r);
    expect(missing.status).toBe(400);
    expect(missing.json.error.message).toBe("task required");
    expect((await post({ task: "   " }, r)).json.error.message).toBe("task required");
    for (const [field, value] of [
      ["mode", "forever"],
      ["cleanup", "later"],
      ["context", "shared"],
      ["sandbox", "off"],
    ]) {
      const response = await post({ task: "t", [field as string]: value }, r);
      expect(response.status).toBe(400);
      expect(response.json.error.message).toMatch(new RegExp(`^${field}: `));
    }
    expect(await indexedChildren(r)).toEqual([]);
  });
});

describe("sessions_spawn accepted", () => {
  it("returns { status, childSessionKey, runId, mode, note, expectsCompletionMessage, context, resolvedModel, modelApplied } and records the child in the index", async () => {
    const r = await requester("main", "ok-shape");
    const result = await spawn(r, { task: "look into it", agentId: "research", label: "Digger" });
    expect(result).toEqual({
      status: "accepted",
      childSessionKey: expect.stringMatching(childKeyOf("research")),
      runId: expect.stringMatching(UUID),
      mode: "run",
      note: NOTE,
      expectsCompletionMessage: true,
      context: "isolated",
      // No model asked for: the child runs with its agent's own.
      resolvedModel: "scripted/research",
      modelApplied: false,
    });
    const child = result.childSessionKey;
    const [row] = await indexedChildren(r);
    expect(row).toMatchObject({
      session_key: child,
      agent_id: "research",
      spawned_by: r,
      spawn_depth: 1,
      label: "Digger",
      list_state: 0,
    });
    const described = await call("GET", `/v1/sessions/${encodeURIComponent(child)}`, { token: ADMIN });
    expect(described.json).toMatchObject({ key: child, spawnedBy: r, parentSessionKey: r, label: "Digger" });
    // The child's run is the one the result names.
    await settleAll([child, r]);
    expect((await storedRuns(child)).map((run) => run.runId)).toEqual([result.runId]);
  });

  it("thread: true outside a chat platform is an error naming thread, and spawns nothing", async () => {
    // On a platform chat it opens a thread and gives mode session (test/platforms/threads.test.ts).
    const r = await requester("main", "ok-thread");
    const threaded = await spawn(r, { task: "t", thread: true, cleanup: "delete" });
    expect(threaded).toMatchObject({ status: "error", error: expect.stringMatching(/^thread: /) });
    expect(await indexedChildren(r)).toEqual([]);
  });

  it("snake_case params and the legacy timeoutSeconds alias are read", async () => {
    const r = await requester("main", "ok-snake");
    const result = await spawn(r, {
      task: "t",
      agent_id: "research",
      timeout_seconds: 7.9,
      idempotency_key: `k-${uid()}`,
    });
    expect(result.childSessionKey).toMatch(childKeyOf("research"));
    const [run] = await storedRunsWithTimeout(result.childSessionKey);
    expect(run?.timeoutMs).toBe(7000);
    const explicit = await spawn(r, { task: "t", runTimeoutSeconds: 3, timeoutSeconds: 9 });
    expect((await storedRunsWithTimeout(explicit.childSessionKey))[0]?.timeoutMs).toBe(3000);
    await settleAll([r, result.childSessionKey, explicit.childSessionKey]);
  });
});

/** Each run's timeout as stored on the child. */
function storedRunsWithTimeout(key: string): Promise<{ runId: string; timeoutMs: number }[]> {
  return runInDurableObject(stub(key), (_instance, state) =>
    state.storage.sql
      .exec<{ run_id: string; timeout_ms: number }>("SELECT run_id, timeout_ms FROM run ORDER BY seq")
      .toArray()
      .map((row) => ({ runId: row.run_id, timeoutMs: row.timeout_ms })),
  );
}
