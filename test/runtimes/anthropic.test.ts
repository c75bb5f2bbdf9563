import { describe, expect, it } from "vitest";
import { runAnthropic } from "../../src/runtimes/anthropic";
import type { RunOutcome } from "../../src/runtimes/types";
import { fakeServicesUrl, newRecording, showsSecret } from "../support";
import { agentWith, LOOKUP_TOOL, runInput } from "./fixtures";

/** The Messages API request body as the fake server recorded it (the fields these tests read). */
type MessagesRequest = {
  model: string;
  max_tokens: number;
  temperature?: number;
  stream: boolean;
  thinking?: { type: string; budget_tokens?: number };
  system?: Array<{ type: string; text: string; cache_control?: unknown }>;
  tools?: Array<{ name: string; input_schema: unknown; cache_control?: unknown }>;
  messages: Array<{ role: string; content: unknown }>;
};

/** An anthropic agent whose API is the fake server's `scenario`, recorded. */
function anthropicAgent(scenario: string, options: Record<string, unknown> = {}, thinking?: string) {
  const recording = newRecording<MessagesRequest>();
  const agent = agentWith({
    type: "anthropic",
    baseUrl: `${fakeServicesUrl()}/anthropic/${scenario}/${recording.segment}`,
    model: "claude-sonnet-4-5",
    ...options,
  });
  return { agent: thinking ? { ...agent, thinking: thinking as "low" } : agent, recording };
}

function expectFailed(outcome: RunOutcome) {
  if (outcome.kind !== "failed") throw new Error(`expected failed, got ${JSON.stringify(outcome)}`);
  return outcome;
}

const KEY = "sk-ant-fake-0123456789abcdefghijklmnop";

describe("runAnthropic against a Messages API stand-in", () => {
  it("streams the answer, sends key, version, system and tools marked for caching, and reports cache usage", async () => {
    const { agent, recording } = anthropicAgent("echo", { apiKeyEnv: "ANTHROPIC_KEY" });
    const deltas: string[] = [];
    const input = runInput(agent, "hello claude", {
      system: "You are in a test.",
      tools: [{ ...LOOKUP_TOOL, name: "first" }, LOOKUP_TOOL],
      secrets: { ANTHROPIC_KEY: KEY },
      onDelta: (text) => deltas.push(text),
    });
    const outcome = await runAnthropic(input);
    expect(outcome).toMatchObject({
      kind: "done",
      text: "hello claude",
      // input is the uncached input; cache reads and writes apart, as Anthropic reports them.
      usage: { input: 11, output: 7, cacheRead: 3, cacheWrite: 5, total: 26, lastCallTokens: 26 },
      messages: [
        {
          role: "assistant",
          content: [{ type: "text", text: "hello claude" }],
          model: "claude-sonnet-4-5",
          provider: "anthropic",
          stopReason: "stop",
          usage: { input: 11, output: 7, cacheRead: 3, cacheWrite: 5, totalTokens: 26 },
        },
      ],
    });
    expect(deltas.join("")).toBe("hello claude");
    expect(deltas.length).toBeGreaterThan(1);
    const [request, ...more] = await recording.requests();
    expect(more).toEqual([]);
    expect(request?.path).toBe(`/anthropic/echo/${recording.segment}/v1/messages`);
    expect(request?.headers["x-api-key"]).toBe(KEY);
    expect(request?.headers["anthropic-version"]).toBe("2023-06-01");
    expect(request?.headers.authorization).toBeUndefined();
    const body = request?.json;
    expect(body).toMatchObject({ model: "claude-sonnet-4-5", stream: true, max_tokens: 4096 });
    expect(body?.temperature).toBeUndefined();
    expect(body?.thinking).toBeUndefined();
    expect(body?.system).toEqual([
      { type: "text", text: "You are in a test.", cache_control: { type: "ephemeral" } },
    ]);
    expect(body?.tools?.map((tool) => [tool.name, tool.cache_control])).toEqual([
      ["first", undefined],
      ["lookup", { type: "ephemeral" }],
    ]);
    expect(body?.tools?.[1]?.input_schema).toEqual(LOOKUP_TOOL.parameters);
    expect(body?.messages).toEqual([{ role: "user", content: [{ type: "text", text: "hello claude" }] }]);
  });

  it("runs the tool loop with tool_use / tool_result blocks, one step at a time", async () => {
    const { agent, recording } = anthropicAgent("tools");
    const input = runInput(agent, JSON.stringify({ word: "cat" }), {
      tools: [LOOKUP_TOOL],
      toolResult: { status: "ok", meaning: "feline" },
    });
    const outcome = await runAnthropic(input);
    expect(input.calls).toEqual([{ name: "lookup", args: { word: "cat" } }]);
    expect(outcome).toMatchObject({
      kind: "done",
      text: 'tool said: {"status":"ok","meaning":"feline"}',
      usage: { input: 22, output: 14, cacheRead: 6, cacheWrite: 10, total: 52 },
    });
    if (outcome.kind !== "done") return;
    expect(outcome.messages.map((message) => message.role)).toEqual(["assistant", "toolResult", "assistant"]);
    expect(outcome.messages[0]).toMatchObject({
      stopReason: "toolUse",
      content: [
        { type: "text", text: "Looking it up." },
        { type: "toolCall", id: "toolu_1", name: "lookup", arguments: { word: "cat" } },
      ],
    });
    expect(outcome.messages[1]).toMatchObject({ toolCallId: "toolu_1", toolName: "lookup", isError: false });
    const requests = await recording.requests();
    expect(requests).toHaveLength(2);
    expect(requests[1]?.json.messages).toEqual([
      { role: "user", content: [{ type: "text", text: '{"word":"cat"}' }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Looking it up." },
          { type: "tool_use", id: "toolu_1", name: "lookup", input: { word: "cat" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_1", content: '{"status":"ok","meaning":"feline"}' },
        ],
      },
    ]);
  });

  it("maps temperature, maxOutputTokens, thinking (a budget under max_tokens) and headers from secrets", async () => {
    const { agent, recording } = anthropicAgent(
      "tools",
      { temperature: 0.3, maxOutputTokens: 1000, headers: { "cf-aig-authorization": { env: "AIG_TOKEN" } } },
      "low",
    );
    const input = runInput(agent, "think", {
      tools: [LOOKUP_TOOL],
      secrets: { AIG_TOKEN: "Bearer aig-secret-1" },
    });
    const outcome = await runAnthropic(input);
    expect(outcome).toMatchObject({ kind: "done" });
    const [first, second] = await recording.requests();
    expect(first?.headers["cf-aig-authorization"]).toBe("Bearer aig-secret-1");
    // Without apiKeyEnv no x-api-key goes out (an AI Gateway holding the key authorises by the header).
    expect(first?.headers["x-api-key"]).toBeUndefined();
    expect(first?.json.thinking).toEqual({ type: "enabled", budget_tokens: 4096 });
    expect(first?.json.max_tokens).toBe(1000 + 4096);
    // Anthropic takes no temperature with extended thinking: the provider leaves it out then.
    expect(first?.json.temperature).toBeUndefined();
    // The signed thinking block goes back with the tool call, as Anthropic requires.
    expect(second?.json.messages[1]?.content).toContainEqual({
      type: "thinking",
      thinking: "Let me think.",
      signature: "sig-fake-1",
    });
    const plain = anthropicAgent("echo", { temperature: 0.3 });
    await runAnthropic(runInput(plain.agent, "warm"));
    expect((await plain.recording.requests())[0]?.json.temperature).toBe(0.3);
  });

  it("fails naming a missing header secret, never calling the API", async () => {
    const { agent, recording } = anthropicAgent("echo", {
      headers: { "cf-aig-authorization": { env: "AIG_TOKEN" } },
    });
    const failed = expectFailed(await runAnthropic(runInput(agent, "hi")));
    expect(failed).toEqual({
      kind: "failed",
      error: "secret AIG_TOKEN (header cf-aig-authorization) is not set",
      retryable: false,
    });
    expect(await recording.requests()).toEqual([]);
  });

  it("classifies failures: 429 with retry-after, 529 and a streamed overloaded_error retryable; 400 not", async () => {
    const limited = expectFailed(await runAnthropic(runInput(anthropicAgent("rate-limited/7").agent, "hi")));
    expect(limited).toMatchObject({ retryable: true, retryAfterMs: 7000 });
    expect(limited.error).toContain("HTTP 429");
    expect(limited.error).toContain("rate_limit_error");
    const capped = expectFailed(
      await runAnthropic(runInput(anthropicAgent("rate-limited/3600").agent, "hi")),
    );
    expect(capped.retryAfterMs).toBe(30_000);
    const overloaded = expectFailed(await runAnthropic(runInput(anthropicAgent("overloaded").agent, "hi")));
    expect(overloaded).toMatchObject({ retryable: true, error: expect.stringContaining("HTTP 529") });
    expect(overloaded.error).toContain("Overloaded");
    const midStream = expectFailed(
      await runAnthropic(runInput(anthropicAgent("overloaded-stream").agent, "hi")),
    );
    expect(midStream).toMatchObject({
      retryable: true,
      error: "model API stream failed: overloaded_error: Overloaded",
    });
    const refused = expectFailed(await runAnthropic(runInput(anthropicAgent("status-400").agent, "hi")));
    expect(refused).toMatchObject({ retryable: false, error: expect.stringContaining("HTTP 400") });
    expect(refused.error).toContain("fake anthropic status 400");
  });

  it("ends with an error saying what came back when the API answers garbage", async () => {
    const failed = expectFailed(await runAnthropic(runInput(anthropicAgent("garbage").agent, "hi")));
    expect(failed.retryable).toBe(false);
    expect(failed.error).toBe(
      "model API answered something unreadable: : fake model streaming event: message_start data: <html>Bad gateway</html>",
    );
  });

  it("masks the API key a refusing server quotes back", async () => {
    const { agent } = anthropicAgent("echo-auth", { apiKeyEnv: "ANTHROPIC_KEY" });
    const failed = expectFailed(
      await runAnthropic(runInput(agent, "hi", { secrets: { ANTHROPIC_KEY: KEY } })),
    );
    expect(failed.error).toContain("HTTP 401");
    expect(showsSecret(failed.error, KEY), failed.error).toBe(false);
  });

  it("fails plainly when the apiKeyEnv secret is missing, and stops when the signal aborts", async () => {
    const missing = anthropicAgent("echo", { apiKeyEnv: "ANTHROPIC_KEY" });
    expect(expectFailed(await runAnthropic(runInput(missing.agent, "hi")))).toMatchObject({
      error: "secret ANTHROPIC_KEY is not set",
      retryable: false,
    });
    const slow = anthropicAgent("slow/10000");
    const started = Date.now();
    const aborted = expectFailed(
      await runAnthropic(runInput(slow.agent, "hi", { signal: AbortSignal.timeout(100) })),
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(aborted).toMatchObject({ retryable: false, error: expect.stringContaining("aborted") });
  });
});
