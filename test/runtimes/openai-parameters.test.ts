import { describe, expect, it } from "vitest";
import type { ThinkingLevel } from "../../src/config/schema";
import { runOpenAi } from "../../src/runtimes/openai";
import { fakeServicesUrl, type ModelRequest, newRecording, showsSecret } from "../support";
import { agentWith, runInput } from "./fixtures";

function openAiAgent(scenario: string, options: Record<string, unknown> = {}, thinking?: ThinkingLevel) {
  const recording = newRecording<ModelRequest & Record<string, unknown>>();
  const agent = agentWith({
    type: "openai",
    baseUrl: `${fakeServicesUrl()}/openai/${scenario}/${recording.segment}`,
    model: "fake-model",
    ...options,
  });
  return { agent: thinking ? { ...agent, thinking } : agent, recording };
}

const GATEWAY_TOKEN = "aig-0123456789abcdefghijklmnopqrstuv";

describe("openai runtime: headers from secrets and model parameters (SPEC §20)", () => {
  it("sends each header's value from its secret, and temperature and max_tokens", async () => {
    const { agent, recording } = openAiAgent("echo", {
      temperature: 0.7,
      maxOutputTokens: 256,
      headers: { "cf-aig-authorization": { env: "AIG_TOKEN" } },
    });
    const outcome = await runOpenAi(
      runInput(agent, "hi", { secrets: { AIG_TOKEN: `Bearer ${GATEWAY_TOKEN}` } }),
    );
    expect(outcome).toMatchObject({ kind: "done", text: "hi" });
    const [request] = await recording.requests();
    expect(request?.headers["cf-aig-authorization"]).toBe(`Bearer ${GATEWAY_TOKEN}`);
    expect(request?.json).toMatchObject({ temperature: 0.7, max_tokens: 256 });
    expect(request?.json.reasoning_effort).toBeUndefined();
  });

  it.each([
    ["minimal", "minimal"],
    ["low", "low"],
    ["medium", "medium"],
    ["high", "high"],
  ] as const)(
    "maps thinking %s to reasoning_effort %s, with max_completion_tokens",
    async (level, effort) => {
      const { agent, recording } = openAiAgent("echo", { maxOutputTokens: 900 }, level);
      await runOpenAi(runInput(agent, "think"));
      const [request] = await recording.requests();
      expect(request?.json).toMatchObject({ reasoning_effort: effort, max_completion_tokens: 900 });
      expect(request?.json.max_tokens).toBeUndefined();
    },
  );

  it("sends no reasoning control for thinking off", async () => {
    const { agent, recording } = openAiAgent("echo", {}, "off");
    await runOpenAi(runInput(agent, "plain"));
    const [request] = await recording.requests();
    expect(Object.keys(request?.json ?? {}).sort()).toEqual([
      "messages",
      "model",
      "stream",
      "stream_options",
    ]);
  });

  it("fails naming a missing header secret without calling the model", async () => {
    const { agent, recording } = openAiAgent("echo", { headers: { "x-extra": { env: "EXTRA_KEY" } } });
    expect(await runOpenAi(runInput(agent, "hi"))).toEqual({
      kind: "failed",
      error: "secret EXTRA_KEY (header x-extra) is not set",
      retryable: false,
    });
    expect(await recording.requests()).toEqual([]);
  });

  it("masks a header secret the server quotes back", async () => {
    const { agent } = openAiAgent("echo-auth", {
      apiKeyEnv: "KEY",
      headers: { "x-gateway-key": { env: "AIG_TOKEN" } },
    });
    // echo-auth quotes the bearer key: here the header secret doubles as it, as a misconfigured proxy might.
    const outcome = await runOpenAi(
      runInput(agent, "hi", { secrets: { KEY: GATEWAY_TOKEN, AIG_TOKEN: GATEWAY_TOKEN } }),
    );
    if (outcome.kind !== "failed") throw new Error("expected failed");
    expect(showsSecret(outcome.error, GATEWAY_TOKEN), outcome.error).toBe(false);
  });

  it("passes a 429's retry-after on, capped at 30 s", async () => {
    const soon = await runOpenAi(runInput(openAiAgent("rate-limited/2").agent, "hi"));
    expect(soon).toMatchObject({ kind: "failed", retryable: true, retryAfterMs: 2000 });
    const late = await runOpenAi(runInput(openAiAgent("rate-limited/86400").agent, "hi"));
    expect(late).toMatchObject({ kind: "failed", retryable: true, retryAfterMs: 30_000 });
  });
});
