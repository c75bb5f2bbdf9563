import { describe, expect, it } from "vitest";
import { call, driveUntil, storedRuns, tool, transcript, webhookPosts } from "../../support";
import { requester, spawnOk } from "../../support/subagents";

/*
 * A collector with an outputSchema end to end (SPEC §15): spawned by sessions_spawn, its child records
 * its result with structured_output over its run token, and the requester collects it with agents_wait.
 */

const SCHEMA = {
  type: "object",
  properties: { answer: { type: "integer" } },
  required: ["answer"],
  additionalProperties: false,
};

/** A collector of `r` on hook-async-rec (its run waits for the test's answer), once its run waits. */
async function schemaCollector(r: string, label: string) {
  const { child, runId, result } = await spawnOk(r, {
    task: `find the answer (${label})`,
    agentId: "hook-async-rec",
    label,
    collect: true,
    groupId: "schema",
    outputSchema: SCHEMA,
  });
  expect(result).toMatchObject({ expectsCompletionMessage: false });
  await driveUntil(
    [r, child],
    async () => (await storedRuns(child)).find((run) => run.status === "running" && run.deferred === 1),
    "the collector's run waiting for its webhook",
  );
  const post = (await webhookPosts("hook-async-rec", child)).find((request) => request.runId === runId);
  if (!post) throw new Error(`no webhook post for ${runId}`);
  return {
    child,
    runId,
    runToken: post.runToken,
    tools: post.tools.map((spec) => spec.name),
    system: post.system,
  };
}

/** The child's agent calls a tool, then posts its final text, over its run token. */
async function invoke(runToken: string, name: string, args: Record<string, unknown>) {
  const invoked = await call<{ result: { details: Record<string, unknown> } }>("POST", "/tools/invoke", {
    token: runToken,
    body: { tool: name, args },
  });
  return invoked.json.result?.details ?? { status: invoked.status, text: invoked.text };
}

async function finish(runId: string, runToken: string, text: string) {
  const posted = await call("POST", `/v1/runs/${runId}/result`, { token: runToken, body: { text } });
  expect(posted.status, posted.text).toBe(200);
}

describe("a collector with an outputSchema, spawned and collected (SPEC §15)", () => {
  it("records the child's structured result and hands it to agents_wait; without one the run is failed", async () => {
    const r = await requester("swarm", "collect-schema");
    const good = await schemaCollector(r, "good");
    // The child is offered structured_output, never sessions_yield, and is told to call it once.
    expect(good.tools).toContain("structured_output");
    expect(good.tools).not.toContain("sessions_yield");
    const [task] = await transcript(good.child);
    expect(task?.content).toBe("[Subagent Task]: find the answer (good)");
    // Its rules reach it in the system prompt its webhook receives (SPEC §20), with the schema.
    expect(good.system).toContain(`Session: ${good.child} (kind other, channel `);
    expect(good.system).toContain(
      `You are a sub-agent at depth 1 of at most 1, role leaf.\nYour requester is ${r}.`,
    );
    expect(good.system).toContain("You are a collector");
    expect(good.system).toContain('call the structured_output tool exactly once as {"result": ...}');
    expect(good.system).toContain(JSON.stringify(SCHEMA));

    expect(await invoke(good.runToken, "structured_output", { result: { answer: 42 } })).toEqual({
      status: "recorded",
    });
    await finish(good.runId, good.runToken, "the answer is 42");

    const silent = await schemaCollector(r, "silent");
    await finish(silent.runId, silent.runToken, "I forgot the tool");

    await driveUntil(
      [r, good.child, silent.child],
      async () => {
        const waited = await tool("agents_wait", r, { ids: [good.runId, silent.runId], timeoutSeconds: 0 });
        return waited.completed.length === 2 ? waited : undefined;
      },
      "both results at the requester",
    );
    const waited = await tool("agents_wait", r, { ids: [good.runId, silent.runId], timeoutSeconds: 0 });
    const byRun = new Map(waited.completed.map((item) => [item.runId, item]));
    expect(byRun.get(good.runId)).toEqual({
      runId: good.runId,
      status: "done",
      result: "the answer is 42",
      structured: { answer: 42 },
      sessionKey: good.child,
      label: "good",
    });
    expect(byRun.get(silent.runId)).toEqual({
      runId: silent.runId,
      status: "failed",
      result: "I forgot the tool",
      error: "structured_output was not called",
      schemaError: "structured_output was not called",
      sessionKey: silent.child,
      label: "silent",
    });
    // Collected, not announced: the requester's transcript holds no completion of either.
    expect(JSON.stringify(await transcript(r))).not.toContain("[Sub-agent completion]");
  });

  it("clamps agents_wait's timeoutSeconds to tools.swarm.waitTimeoutSecondsMax", async () => {
    const r = await requester("swarm-small", "collect-clamp");
    const { runId } = await spawnOk(r, {
      task: "never answered",
      agentId: "hook-async",
      collect: true,
      groupId: "clamp",
    });
    // swarm-small's waitTimeoutSecondsMax is 1: an hour's wait answers once that second is over.
    expect(await tool("agents_wait", r, { ids: [runId], timeoutSeconds: 3600 })).toEqual({
      completed: [],
      pending: [runId],
    });
  });
});
