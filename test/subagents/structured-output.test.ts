import { abortAllDurableObjects } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { schemaViolations } from "../../src/subagents/output-schema";
import {
  ADMIN,
  call,
  callsArrived,
  createSession,
  driveUntil,
  getRun,
  getSession,
  type ModelRequest,
  modelCalls,
  type RunWaitResult,
  sendMessage,
  session,
  storedRuns,
  uid,
  waitRun,
  webhookPosts,
} from "../support";
import { shardOf } from "../support/shards";
import { requester, subagents } from "../support/subagents";

/*
 * structured_output (SPEC §15, OpenClaw reference §6.3): the child-only tool of a collector spawned with
 * an outputSchema. Until sessions_spawn takes `collect`, each child is created as sessions_spawn creates
 * one, through its object's createWithTurn, with `spawn.collect` set.
 */

const SCHEMA = {
  type: "object",
  properties: { title: { type: "string" }, score: { type: "integer", minimum: 0 } },
  required: ["title", "score"],
  additionalProperties: false,
};
const DESCRIPTION = `Call exactly once as {"result": ...}, where result matches this JSON Schema: ${JSON.stringify(SCHEMA)}`;
const NOT_ALLOWED = "Tool not available: structured_output";

/** A child of `parent` on `agentId`, its first run queued with `text`; a collector when `collect` is given. */
async function child(
  agentId: string,
  parent: string,
  text: string,
  collect?: { outputSchema?: Record<string, unknown> },
): Promise<{ key: string; runId: string }> {
  const key = `agent:${agentId}:subagent:${crypto.randomUUID()}`;
  const runId = crypto.randomUUID();
  const created = await session(key).createWithTurn(
    {
      sessionKey: key,
      agentId,
      spawnedBy: parent,
      spawnDepth: 1,
      spawn: {
        requesterKey: parent,
        task: text,
        mode: "run",
        cleanup: "keep",
        archiveAfterMinutes: 0,
        ...(collect ? { collect: { groupId: `swarm:${parent}:test`, ...collect } } : {}),
      },
    },
    { runId, message: { text, provenance: { kind: "subagent_task", sourceSessionKey: parent } } },
  );
  expect(created, JSON.stringify(created)).toMatchObject({ ok: true });
  return { key, runId };
}

/** A hook-async-rec collector child, once its run waits for the agent's answer: its run token and tools. */
async function webhookCollector(parent: string, collect: { outputSchema?: Record<string, unknown> }) {
  const { key, runId } = await child("hook-async-rec", parent, `collect ${uid()}`, collect);
  await driveUntil(
    [key],
    async () => (await storedRuns(key)).find((run) => run.status === "running" && run.deferred === 1),
    "the collector's run waiting for its webhook",
  );
  const post = (await webhookPosts("hook-async-rec", key)).find((request) => request.runId === runId);
  if (!post) throw new Error(`no webhook post for ${runId}`);
  return { key, runId, runToken: post.runToken, tools: post.tools };
}

/** `/tools/invoke` structured_output with a run token, as a webhook agent calls it: status and details. */
async function structuredOutput(runToken: string, result: unknown) {
  const invoked = await call<{ result: { details: Record<string, unknown> } }>("POST", "/tools/invoke", {
    token: runToken,
    body: { tool: "structured_output", args: { result } },
  });
  return { status: invoked.status, details: invoked.json.result?.details, text: invoked.text };
}

/** Posts a webhook run's final text, as its agent would; the run's wait result. */
async function finish(runId: string, runToken: string, text: string): Promise<RunWaitResult> {
  const posted = await call<RunWaitResult>("POST", `/v1/runs/${runId}/result`, {
    token: runToken,
    body: { text },
  });
  expect(posted.status, posted.text).toBe(200);
  return posted.json;
}

/** The requester's `subagents wait` snapshot of one run. */
async function progressOf(parent: string, runId: string) {
  const waited = await subagents(parent, { action: "wait", runIds: [runId], timeoutSeconds: 0 });
  return waited.runs?.[0];
}

describe("structured_output over a run token (webhook collector)", () => {
  it("is offered with the schema; invalid, invalid, then anything is rejected; the done run ends failed", async () => {
    const parent = await requester("main", "collect");
    const run = await webhookCollector(parent, { outputSchema: SCHEMA });
    expect(run.tools.find((spec) => spec.name === "structured_output")).toMatchObject({
      description: DESCRIPTION,
      parameters: { type: "object", required: ["result"] },
    });

    const bad = { title: 7, extra: true };
    const violations = schemaViolations(SCHEMA, bad).slice(0, 3).join("; ");
    expect(violations.split("; ").length).toBeGreaterThan(1);
    const schemaError = `structured_output validation failed: ${violations}`;
    const first = await structuredOutput(run.runToken, bad);
    expect(first).toMatchObject({ status: 200 });
    expect(first.details).toEqual({
      status: "error",
      error: `${schemaError}. Retry once with a corrected final result.`,
    });
    const second = await structuredOutput(run.runToken, bad);
    expect(second.details).toEqual({ status: "rejected", success: false, schemaError });
    // After two invalid results even a valid one is refused: the run will end failed.
    const third = await structuredOutput(run.runToken, { title: "ok", score: 1 });
    expect(third.details).toEqual({ status: "rejected", success: false, schemaError });

    expect(await finish(run.runId, run.runToken, "my raw answer")).toMatchObject({
      status: "error",
      runStatus: "error",
      error: schemaError,
    });
    const ended = await getRun(run.runId);
    expect(ended).toMatchObject({ status: "error", error: schemaError, schemaError, reply: "my raw answer" });
    expect(ended).not.toHaveProperty("structured");
    expect((await getSession(run.key)).json.status).toBe("failed");
    expect(await progressOf(parent, run.runId)).toMatchObject({
      status: "failed",
      outcome: { status: "error", error: schemaError.slice(0, 120) },
    });
  });

  it("records a valid result once (after one retry); the run ends done with structured and its raw reply", async () => {
    const parent = await requester("main", "collect");
    const run = await webhookCollector(parent, { outputSchema: SCHEMA });
    const retry = await structuredOutput(run.runToken, { title: "no score" });
    expect(retry.details).toMatchObject({ status: "error", error: expect.stringMatching(/Retry once/) });
    const value = { title: "Widgets", score: 3 };
    expect((await structuredOutput(run.runToken, value)).details).toEqual({ status: "recorded" });
    expect((await structuredOutput(run.runToken, value)).details).toEqual({
      status: "error",
      error: "structured_output already recorded for this run",
    });

    expect(await finish(run.runId, run.runToken, "here it is")).toMatchObject({ status: "ok" });
    const ended = await getRun(run.runId);
    expect(ended).toMatchObject({ status: "ok", reply: "here it is", structured: value });
    expect(ended).not.toHaveProperty("schemaError");
    expect(ended).not.toHaveProperty("error");
    expect(await progressOf(parent, run.runId)).toMatchObject({ status: "done", outcome: { status: "ok" } });
    // The run is over: nothing more is recorded for it.
    expect((await structuredOutput(run.runToken, value)).details).toEqual({
      status: "error",
      error: "structured_output records a result of a run in progress",
    });
  });

  it("a done run that never called it ends failed; a killed one stays killed, with the same schemaError", async () => {
    const parent = await requester("main", "collect");
    const silent = await webhookCollector(parent, { outputSchema: SCHEMA });
    expect(await finish(silent.runId, silent.runToken, "forgot")).toMatchObject({
      status: "error",
      error: "structured_output was not called",
    });
    expect(await getRun(silent.runId)).toMatchObject({
      status: "error",
      schemaError: "structured_output was not called",
      reply: "forgot",
    });

    const killed = await webhookCollector(parent, { outputSchema: SCHEMA });
    expect(await session(killed.key).kill()).toMatchObject({ ok: true, value: { stopped: 1 } });
    expect(await getRun(killed.runId)).toMatchObject({
      status: "killed",
      error: "run killed",
      schemaError: "structured_output was not called",
    });
    expect(await progressOf(parent, killed.runId)).toMatchObject({ status: "killed" });
  });
});

describe("structured_output is only a collector child's with an outputSchema", () => {
  it("is not offered to, nor callable by, another child, a collector without a schema or a top-level session", async () => {
    const parent = await requester("main", "collect");
    // Each run's message (the model's arguments) carries its own marker, to find its model requests.
    const args = (marker: string) => JSON.stringify({ result: { title: marker, score: 1 } });
    const markers = [`plain-${uid()}`, `no-schema-${uid()}`, `top-${uid()}`];
    const plain = await child("model-structured", parent, args(markers[0] ?? ""));
    const noSchema = await child("model-structured", parent, args(markers[1] ?? ""), {});
    const topLevel = `agent:model-structured:top-${uid()}`;
    await createSession({ agentId: "model-structured", key: topLevel });
    const topRun = await sendMessage(topLevel, args(markers[2] ?? ""));
    for (const runId of [plain.runId, noSchema.runId, topRun]) {
      // The model asks for structured_output anyway: it is answered as any tool the run lacks.
      const ended = await waitRun(runId);
      expect(ended).toMatchObject({ status: "ok" });
      expect(ended.reply).toBe(`tool said: ${JSON.stringify({ status: "error", error: NOT_ALLOWED })}`);
    }
    const requests = await modelCalls("model-structured");
    for (const marker of markers) {
      const offered = requests.filter((request) => JSON.stringify(request.json).includes(marker));
      expect(offered.length, marker).toBeGreaterThan(0);
      for (const request of offered)
        expect(request.json.tools?.map((spec) => spec.function.name) ?? []).not.toContain(
          "structured_output",
        );
    }

    // Over HTTP: a collector without a schema (its run token), and a collector's session without a run.
    const hook = await webhookCollector(parent, {});
    expect(hook.tools.map((spec) => spec.name)).not.toContain("structured_output");
    const refused = await structuredOutput(hook.runToken, { title: "x", score: 1 });
    expect(refused.status).toBe(404);
    expect(refused.text).toContain(NOT_ALLOWED);
    const schemaChild = await webhookCollector(parent, { outputSchema: SCHEMA });
    const asOperator = await call("POST", "/v1/tools/structured_output", {
      token: ADMIN,
      body: { result: { title: "x", score: 1 } },
      headers: { "X-Switchboard-Session": schemaChild.key },
    });
    expect(asOperator.status).toBe(404);
    expect(asOperator.text).toContain(NOT_ALLOWED);
  });
});

describe("structured_output in a model's run (openai runtime, in the session object)", () => {
  it("records the model's call, and a run resumed after a crash replays it instead of calling again", async () => {
    const parent = await requester("main", "collect");
    const value = { title: `gadgets-${uid()}`, score: 9 };
    const run = await child("model-structured-slow", parent, JSON.stringify({ result: value }), {
      outputSchema: SCHEMA,
    });
    // The call was made and recorded, and the run is in its next (slow) model round: cut it there.
    const [first] = await callsArrived<ModelRequest>("model-structured-slow", 2, value.title);
    const offered = first?.json.tools?.find((spec) => spec.function.name === "structured_output");
    expect(offered?.function.description).toBe(DESCRIPTION);
    await abortAllDurableObjects();

    const ended = await waitRun(run.runId);
    // The resumed run's model called it again at the same place and got the recorded answer.
    expect(ended).toMatchObject({
      status: "ok",
      reply: `tool said: ${JSON.stringify({ status: "recorded" })}`,
    });
    expect(await getRun(run.runId)).toMatchObject({ status: "ok", attempts: 2, structured: value });
    expect((await callsArrived("model-structured-slow", 3, value.title)).length).toBeGreaterThanOrEqual(3);
  });
  it("a collector's run may spawn only collectors, as its run token says, even before the index knows", async () => {
    const parent = await requester("spawner", "collect-origin");
    const { key, runId } = await child("boss-async-rec", parent, "orchestrate", {});
    await driveUntil(
      [key],
      async () => (await storedRuns(key)).find((run) => run.status === "running" && run.deferred === 1),
      "the collector's run waiting for its webhook",
    );
    const post = (await webhookPosts("boss-async-rec", key)).find((request) => request.runId === runId);
    if (!post) throw new Error(`no webhook post for ${runId}`);
    // The index lags behind the child: its row does not say collector yet.
    await shardOf(key)
      .prepare("UPDATE session_index SET collector = 0 WHERE session_key = ?")
      .bind(key)
      .run();
    const invoked = await call<{ result: { details: Record<string, unknown> } }>("POST", "/tools/invoke", {
      token: post.runToken,
      body: { tool: "sessions_spawn", args: { task: "nested" } },
    });
    expect(invoked.json.result?.details).toEqual({
      status: "error",
      error: "sessions_spawn from a collector requires collect=true so approvals stay non-interactive.",
    });
  });
});
