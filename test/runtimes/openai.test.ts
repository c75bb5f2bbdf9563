import { describe, expect, it } from "vitest";
import { MAX_MODEL_STEPS as MAX_TOOL_ROUNDS } from "../../src/runtimes/model-loop";
import { runOpenAi } from "../../src/runtimes/openai";
import type { RunOutcome } from "../../src/runtimes/types";
import { fakeServicesUrl, type ModelRequest, newRecording, showsSecret } from "../support";
import { agentWith, LOOKUP_TOOL, runInput } from "./fixtures";

/** An openai agent whose model API is the fake server's `scenario`, recorded. */
function modelAgent(scenario: string, options: { apiKeyEnv?: string } = {}) {
  const recording = newRecording<ModelRequest>();
  const agent = agentWith({
    type: "openai",
    baseUrl: `${fakeServicesUrl()}/openai/${scenario}/${recording.segment}`,
    model: "fake-model",
    ...options,
  });
  return { agent, recording };
}

function expectFailed(outcome: RunOutcome): { error: string; retryable: boolean } {
  if (outcome.kind !== "failed") throw new Error(`expected failed, got ${JSON.stringify(outcome)}`);
  return outcome;
}

describe("runOpenAi against an OpenAI-compatible server", () => {
  it("sends the model, system prompt, history and its system notes, and answers the model's text; no usage reported, none recorded", async () => {
    const { agent, recording } = modelAgent("echo");
    const input = runInput(agent, "hello model", {
      system: "You are in a test.",
      history: [
        { id: "h1", role: "user", content: "earlier question", timestamp: 1 },
        { id: "h2", role: "assistant", content: [{ type: "text", text: "earlier answer" }], timestamp: 2 },
        { id: "h3", role: "toolResult", content: [{ type: "text", text: "hidden" }], timestamp: 3 },
        // A system note of the chat (a watch notice, a yield's note) reaches the model where it stands.
        { id: "h4", role: "system", content: "Session changed: reconcile.", timestamp: 4 },
      ],
    });
    const outcome = await runOpenAi(input);
    expect(outcome).toEqual({
      kind: "done",
      text: "hello model",
      // The fake model's echo reports no usage: unknown, so neither the run nor its message has any.
      messages: [
        {
          id: expect.any(String),
          role: "assistant",
          content: [{ type: "text", text: "hello model" }],
          model: "fake-model",
          provider: "openai",
          stopReason: "stop",
          timestamp: expect.any(Number),
          runId: input.runId,
        },
      ],
    });
    const [request, ...more] = await recording.requests();
    expect(more).toEqual([]);
    expect(request?.method).toBe("POST");
    expect(request?.path).toBe(`/openai/echo/${recording.segment}/chat/completions`);
    expect(request?.headers["content-type"]).toBe("application/json");
    expect(request?.headers.authorization).toBeUndefined();
    expect(request?.json).toEqual({
      model: "fake-model",
      messages: [
        { role: "system", content: "You are in a test." },
        { role: "user", content: "earlier question" },
        { role: "assistant", content: "earlier answer" },
        { role: "system", content: "Session changed: reconcile." },
        { role: "user", content: "hello model" },
      ],
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it("reports the usage the model answers; an answer cut short stops with `length`", async () => {
    const outcome = await runOpenAi(runInput(modelAgent("length").agent, "count me"));
    expect(outcome).toMatchObject({
      kind: "done",
      text: "count me",
      usage: { input: 11, output: 7, total: 18, lastCallTokens: 18 },
      messages: [{ stopReason: "length", usage: { input: 11, output: 7, totalTokens: 18 } }],
    });
  });

  it("reports the prompt tokens the server read from its cache as cacheRead, the rest as input", async () => {
    const outcome = await runOpenAi(runInput(modelAgent("cached").agent, "cache me"));
    expect(outcome).toMatchObject({
      kind: "done",
      usage: { input: 3, output: 7, total: 18, cacheRead: 8, lastCallTokens: 18 },
      messages: [{ usage: { input: 3, output: 7, totalTokens: 18, cacheRead: 8 } }],
    });
  });

  it("runs the tool loop: call, result back to the model, final answer, usage summed", async () => {
    const { agent, recording } = modelAgent("tools");
    const input = runInput(agent, '{"word":"switchboard"}', {
      tools: [LOOKUP_TOOL],
      toolResult: { definition: "a panel of switches" },
    });
    const outcome = await runOpenAi(input);

    expect(input.calls).toEqual([{ name: "lookup", args: { word: "switchboard" } }]);
    if (outcome.kind !== "done") throw new Error(`expected done, got ${JSON.stringify(outcome)}`);
    expect(outcome.text).toBe('tool said: {"definition":"a panel of switches"}');
    // Summed for the run; the session's context is the last call's 10 + 5.
    expect(outcome.usage).toEqual({ input: 20, output: 10, total: 30, lastCallTokens: 15 });
    const callUsage = { input: 10, output: 5, totalTokens: 15 };
    expect(outcome.messages).toEqual([
      expect.objectContaining({
        role: "assistant",
        runId: input.runId,
        content: [{ type: "toolCall", id: "call_1", name: "lookup", arguments: { word: "switchboard" } }],
        stopReason: "toolUse",
        usage: callUsage,
      }),
      expect.objectContaining({
        role: "toolResult",
        runId: input.runId,
        toolCallId: "call_1",
        toolName: "lookup",
        content: [{ type: "text", text: '{"definition":"a panel of switches"}' }],
        isError: false,
      }),
      expect.objectContaining({
        role: "assistant",
        runId: input.runId,
        content: [{ type: "text", text: outcome.text }],
        stopReason: "stop",
        usage: callUsage,
      }),
    ]);

    const [first, second, ...more] = await recording.requests();
    expect(more).toEqual([]);
    expect(first?.json.tools).toEqual([{ type: "function", function: LOOKUP_TOOL }]);
    expect(second?.json.tools).toEqual(first?.json.tools);
    expect(second?.json.messages.slice(1)).toEqual([
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "call_1",
            type: "function",
            function: { name: "lookup", arguments: '{"word":"switchboard"}' },
          },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: '{"definition":"a panel of switches"}' },
    ]);
  });

  it(`gives up after ${MAX_TOOL_ROUNDS} rounds of tool calls`, async () => {
    const { agent, recording } = modelAgent("loop");
    const input = runInput(agent, "again", { tools: [LOOKUP_TOOL] });
    const failed = expectFailed(await runOpenAi(input));
    expect(failed).toEqual({
      kind: "failed",
      error: `model did not answer within ${MAX_TOOL_ROUNDS} tool rounds`,
      retryable: false,
    });
    expect(input.calls).toHaveLength(MAX_TOOL_ROUNDS);
    expect(await recording.requests()).toHaveLength(MAX_TOOL_ROUNDS);
  });

  it("fails retryable on HTTP 500 with the status and a body excerpt", async () => {
    const failed = expectFailed(await runOpenAi(runInput(modelAgent("status-500").agent, "hi")));
    expect(failed.retryable).toBe(true);
    expect(failed.error).toContain("HTTP 500");
    expect(failed.error).toContain("fake model status 500");
  });

  it("fails retryable on HTTP 429, not retryable on HTTP 400", async () => {
    const limited = expectFailed(await runOpenAi(runInput(modelAgent("status-429").agent, "hi")));
    expect(limited).toMatchObject({ retryable: true, error: expect.stringContaining("HTTP 429") });
    expect(limited.error).toContain("fake model status 429");
    const refused = expectFailed(await runOpenAi(runInput(modelAgent("status-400").agent, "hi")));
    expect(refused).toMatchObject({ retryable: false, error: expect.stringContaining("HTTP 400") });
  });

  it("stops waiting when the run's signal aborts (timeout)", async () => {
    const { agent, recording } = modelAgent("slow/10000");
    const started = Date.now();
    const failed = expectFailed(await runOpenAi(runInput(agent, "hi", { signal: AbortSignal.timeout(100) })));
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(failed.error).toContain("aborted");
    expect(failed.retryable).toBe(false);
    expect(await recording.requests()).toHaveLength(1);
  });

  it("says aborted, not malformed, when the signal aborts while the body is arriving", async () => {
    const { agent } = modelAgent("stall/10000");
    const failed = expectFailed(await runOpenAi(runInput(agent, "hi", { signal: AbortSignal.timeout(100) })));
    expect(failed.error).toContain("model API call aborted");
    expect(failed.retryable).toBe(false);
  });

  it("reads a body that arrives in pieces", async () => {
    const outcome = await runOpenAi(runInput(modelAgent("stall/50").agent, "in pieces"));
    expect(outcome).toMatchObject({ kind: "done", text: "in pieces" });
  });

  it("does not call the model at all with an already aborted signal", async () => {
    const { agent, recording } = modelAgent("echo");
    const controller = new AbortController();
    controller.abort("run killed");
    const failed = expectFailed(await runOpenAi(runInput(agent, "hi", { signal: controller.signal })));
    expect(failed.error).toBe("model API call aborted: run killed");
    expect(await recording.requests()).toEqual([]);
  });

  it("fails, not retryable, on a 200 that is not a completion", async () => {
    const failed = expectFailed(await runOpenAi(runInput(modelAgent("malformed").agent, "hi")));
    expect(failed).toEqual({
      kind: "failed",
      error: "model API answered a malformed completion",
      retryable: false,
    });
  });

  // workerd logs the dropped connection as an "uncaught exception" of its own; the run still sees a rejection.
  it("fails retryable when the connection drops without an answer", async () => {
    const agent = modelAgent("hangup").agent;
    const failed = expectFailed(await runOpenAi(runInput(agent, "hi")));
    expect(failed).toMatchObject({
      retryable: true,
      error: expect.stringContaining("model API unreachable"),
    });
  });

  it("sends the API key from apiKeyEnv as a bearer token", async () => {
    const { agent, recording } = modelAgent("echo", { apiKeyEnv: "FAKE_MODEL_KEY" });
    const outcome = await runOpenAi(runInput(agent, "hi", { secrets: { FAKE_MODEL_KEY: "sk-test-123" } }));
    expect(outcome).toMatchObject({ kind: "done", text: "hi" });
    const [request] = await recording.requests();
    expect(request?.headers.authorization).toBe("Bearer sk-test-123");
  });

  it("masks the API key a refusing server quotes back, before the excerpt is cut", async () => {
    const key = "fmk-0123456789abcdefghijklmnopqrstuv";
    const quoted = async (filler: number) =>
      expectFailed(
        await runOpenAi(
          runInput(modelAgent(`echo-auth/${filler}`, { apiKeyEnv: "FAKE_MODEL_KEY" }).agent, "hi", {
            secrets: { FAKE_MODEL_KEY: key },
          }),
        ),
      ).error;
    // Whole in the excerpt, and cut by it: 20 of its characters fall before the excerpt's 300th.
    for (const filler of [0, 231]) {
      const error = await quoted(filler);
      expect(error).toContain("model API answered HTTP 401");
      expect(error).toContain("Incorrect API key provided: fmk-01…stuv");
      expect(showsSecret(error, key), error).toBe(false);
    }
  });

  it("fails clearly, without calling the model, when the apiKeyEnv secret is missing", async () => {
    const { agent, recording } = modelAgent("echo", { apiKeyEnv: "FAKE_MODEL_KEY" });
    const failed = expectFailed(await runOpenAi(runInput(agent, "hi")));
    expect(failed).toEqual({ kind: "failed", error: "secret FAKE_MODEL_KEY is not set", retryable: false });
    expect(await recording.requests()).toEqual([]);
  });
});
