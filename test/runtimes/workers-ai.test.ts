import { describe, expect, it } from "vitest";
import type { RunOutcome } from "../../src/runtimes/types";
import { runWorkersAi } from "../../src/runtimes/workers-ai";
import { fakeWorkersAi } from "../support/fake-workers-ai";
import { agentWith, LOOKUP_TOOL, runInput } from "./fixtures";

const MODEL = "@cf/meta/llama-3.3-70b-instruct-fp8-fast";

function workersAiAgent(options: Record<string, unknown> = {}) {
  return agentWith({ type: "workers-ai", model: MODEL, ...options });
}

function expectFailed(outcome: RunOutcome) {
  if (outcome.kind !== "failed") throw new Error(`expected failed, got ${JSON.stringify(outcome)}`);
  return outcome;
}

describe("runWorkersAi through the AI binding", () => {
  it("streams the answer from the binding, with the model, system prompt, parameters and usage", async () => {
    const { ai, calls } = fakeWorkersAi("echo");
    const deltas: string[] = [];
    const agent = workersAiAgent({ temperature: 0.2, maxOutputTokens: 300 });
    const input = runInput(agent, "hello workers", {
      ai,
      system: "Be brief.",
      onDelta: (text) => deltas.push(text),
    });
    const outcome = await runWorkersAi(input);
    expect(outcome).toMatchObject({
      kind: "done",
      text: "hello workers",
      usage: { input: 9, output: 4, total: 13 },
      messages: [{ role: "assistant", model: MODEL, provider: "workers-ai", stopReason: "stop" }],
    });
    expect(deltas.join("")).toBe("hello workers");
    expect(calls).toHaveLength(1);
    expect(calls[0]?.model).toBe(MODEL);
    expect(calls[0]?.inputs).toMatchObject({
      stream: true,
      temperature: 0.2,
      max_tokens: 300,
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "hello workers" },
      ],
    });
    // No gateway configured: the binding is asked without one; the run's signal always goes along.
    expect(calls[0]?.options.gateway).toBeUndefined();
    expect(calls[0]?.options.signal).toBe(input.signal);
  });

  it("goes through the AI Gateway when `gateway` is set", async () => {
    const { ai, calls } = fakeWorkersAi("echo");
    const agent = workersAiAgent({ gateway: { id: "my-gateway", skipCache: true, cacheTtl: 60 } });
    expect(await runWorkersAi(runInput(agent, "hi", { ai }))).toMatchObject({ kind: "done" });
    expect(calls[0]?.options.gateway).toEqual({ id: "my-gateway", skipCache: true, cacheTtl: 60 });
  });

  it("runs the tool loop with the model's function calls, each through callTool", async () => {
    const { ai, calls } = fakeWorkersAi("tools");
    const input = runInput(workersAiAgent(), JSON.stringify({ word: "dog" }), {
      ai,
      tools: [LOOKUP_TOOL],
      toolResult: { status: "ok", meaning: "canine" },
    });
    const outcome = await runWorkersAi(input);
    expect(input.calls).toEqual([{ name: "lookup", args: { word: "dog" } }]);
    expect(outcome).toMatchObject({
      kind: "done",
      text: 'tool said: {"status":"ok","meaning":"canine"}',
      usage: { input: 18, output: 8, total: 26 },
    });
    if (outcome.kind === "done")
      expect(outcome.messages.map((message) => message.role)).toEqual([
        "assistant",
        "toolResult",
        "assistant",
      ]);
    expect(calls).toHaveLength(2);
    expect(calls[0]?.inputs.tools).toEqual([
      {
        type: "function",
        function: {
          name: "lookup",
          description: LOOKUP_TOOL.description,
          parameters: LOOKUP_TOOL.parameters,
        },
      },
    ]);
    const second = calls[1]?.inputs.messages as Array<{ role: string; tool_call_id?: string }>;
    expect(second.map((message) => message.role)).toEqual(["user", "assistant", "tool"]);
    expect(second[2]?.tool_call_id).toBe("chatcmpl-tool-1");
  });

  it("leaves usage unknown, not zero, when the model reports none", async () => {
    const outcome = await runWorkersAi(
      runInput(workersAiAgent(), "count me", { ai: fakeWorkersAi("no-usage").ai }),
    );
    expect(outcome).toMatchObject({ kind: "done", text: "count me" });
    if (outcome.kind !== "done") return;
    expect(outcome.usage).toBeUndefined();
    expect(outcome.messages[0]?.usage).toBeUndefined();
  });

  it("ends with an error saying what came back when the stream is garbage", async () => {
    const failed = expectFailed(
      await runWorkersAi(runInput(workersAiAgent(), "hi", { ai: fakeWorkersAi("garbage").ai })),
    );
    expect(failed).toEqual({
      kind: "failed",
      error: "model API answered something unreadable: data: <html>upstream error</html>",
      retryable: false,
    });
  });

  it("reports a binding that throws as a failed run, and a missing binding plainly", async () => {
    const thrown = expectFailed(
      await runWorkersAi(runInput(workersAiAgent(), "hi", { ai: fakeWorkersAi("throws").ai })),
    );
    expect(thrown.error).toContain("3040: Capacity temporarily exceeded");
    // Workers AI's 3040 is its capacity error: worth another try.
    expect(thrown.retryable).toBe(true);
    const unbound = expectFailed(await runWorkersAi(runInput(workersAiAgent(), "hi")));
    expect(unbound).toMatchObject({
      retryable: false,
      error: expect.stringContaining("binding AI is not bound"),
    });
  });
});
