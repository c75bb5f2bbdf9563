import { describe, expect, it } from "vitest";
import { runOpenAi } from "../../src/runtimes/openai";
import type { RunOutcome } from "../../src/runtimes/types";
import { fakeServicesUrl, type ModelRequest, newRecording } from "../support";
import { agentWith, LOOKUP_TOOL, runInput } from "./fixtures";

/**
 * Runs an openai agent against the fake model's `scenario` (a path such as `tools` or `tools/as-json`);
 * answers the outcome, every delta handed to `onDelta` in order, and the requests the model received.
 */
async function run(scenario: string, text: string, options: Parameters<typeof runInput>[2] = {}) {
  const recording = newRecording<ModelRequest>();
  const agent = agentWith({
    type: "openai",
    baseUrl: `${fakeServicesUrl()}/openai/${scenario}/${recording.segment}`,
    model: "fake-model",
  });
  const deltas: string[] = [];
  const input = runInput(agent, text, { ...options, onDelta: (delta) => deltas.push(delta) });
  const outcome = await runOpenAi(input);
  return { outcome, deltas, requests: (await recording.requests()).map((request) => request.json) };
}

/** The outcome without what differs between two runs of the same answer (message ids and times). */
function comparable(outcome: RunOutcome): unknown {
  if (outcome.kind !== "done") return outcome;
  return {
    ...outcome,
    messages: outcome.messages.map((m) => ({ ...m, id: "id", timestamp: 0, runId: "run" })),
  };
}

describe("runOpenAi streams the model's answer", () => {
  it("asks for a stream with usage; deltas arrive in order, add up to the reply, and the outcome is the JSON answer's", async () => {
    const text = "a streamed reply, with ünïcode 👋";
    const streamed = await run("length", text);
    expect(streamed.requests).toEqual([
      expect.objectContaining({ stream: true, stream_options: { include_usage: true } }),
    ]);
    // The fake model streams the text in 3 pieces, as a real one streams tokens.
    expect(streamed.deltas).toHaveLength(3);
    expect(streamed.deltas.join("")).toBe(text);
    expect(streamed.outcome).toMatchObject({
      kind: "done",
      text,
      // Usage from the last chunk, finish reason from the finish chunk.
      usage: { input: 11, output: 7, total: 18, lastCallTokens: 18 },
      messages: [{ stopReason: "length", content: [{ type: "text", text }] }],
    });
    const whole = await run("length/as-json", text);
    expect(comparable(streamed.outcome)).toEqual(comparable(whole.outcome));
    // A server that answers JSON despite `stream: true`: the reply reaches watchers as one delta.
    expect(whole.deltas).toEqual([text]);
  });

  it("reassembles tool calls from their deltas: same calls, messages and next request as a JSON answer", async () => {
    const options = { tools: [LOOKUP_TOOL], toolResult: { definition: "a panel of switches" } };
    const streamed = await run("tools", '{"word":"switchboard"}', options);
    const whole = await run("tools/as-json", '{"word":"switchboard"}', options);
    expect(streamed.outcome.kind).toBe("done");
    expect(comparable(streamed.outcome)).toEqual(comparable(whole.outcome));
    expect(streamed.outcome).toMatchObject({
      messages: [
        {
          content: [{ type: "toolCall", id: "call_1", name: "lookup", arguments: { word: "switchboard" } }],
          stopReason: "toolUse",
        },
        { role: "toolResult", toolCallId: "call_1" },
        { role: "assistant", stopReason: "stop" },
      ],
    });
    // The round that only called a tool streamed no text.
    expect(streamed.deltas.join("")).toBe('tool said: {"definition":"a panel of switches"}');
    expect(streamed.requests).toHaveLength(2);
    expect(streamed.requests[1]?.messages).toEqual(whole.requests[1]?.messages);
  });

  it("keeps text said along with tool calls, streamed or JSON: in the call's message and the next request; usage of the calls that reported it", async () => {
    const options = { tools: [LOOKUP_TOOL], toolResult: { definition: "a panel of switches" } };
    const streamed = await run("tools-text", '{"word":"switchboard"}', options);
    const whole = await run("tools-text/as-json", '{"word":"switchboard"}', options);
    const answer = 'tool said: {"definition":"a panel of switches"}';
    for (const { outcome, deltas, requests } of [streamed, whole]) {
      expect(outcome).toEqual({
        kind: "done",
        text: answer,
        // The call round reported no usage: the run sums the answer's alone, the call's message has none.
        usage: { input: 10, output: 5, total: 15, lastCallTokens: 15 },
        messages: [
          {
            id: expect.any(String),
            role: "assistant",
            content: [
              { type: "text", text: "Looking it up." },
              { type: "toolCall", id: "call_1", name: "lookup", arguments: { word: "switchboard" } },
            ],
            model: "fake-model",
            provider: "openai",
            stopReason: "toolUse",
            timestamp: expect.any(Number),
            runId: expect.any(String),
          },
          expect.objectContaining({ role: "toolResult", toolCallId: "call_1" }),
          expect.objectContaining({
            role: "assistant",
            content: [{ type: "text", text: answer }],
            usage: { input: 10, output: 5, totalTokens: 15 },
          }),
        ],
      });
      expect(deltas.join("")).toBe(`Looking it up.${answer}`);
      expect(requests).toHaveLength(2);
      expect(requests[1]?.messages.slice(1, 2)).toEqual([
        {
          role: "assistant",
          content: "Looking it up.",
          tool_calls: [
            {
              id: "call_1",
              type: "function",
              function: { name: "lookup", arguments: '{"word":"switchboard"}' },
            },
          ],
        },
      ]);
    }
  });

  // workerd logs the dropped connection as an exception of its own; the run still sees a read error.
  it("fails retryable when the stream breaks off or ends before the answer, after the deltas it got", async () => {
    const broken = await run("broken", "cut me off");
    expect(broken.outcome).toEqual({
      kind: "failed",
      error: expect.stringContaining("model API stream broke off"),
      retryable: true,
    });
    expect(broken.deltas).toEqual(["cut "]);
    const short = await run("cut-short", "cut me off");
    expect(short.outcome).toEqual({
      kind: "failed",
      error: "model API stream ended before the answer did",
      retryable: true,
    });
    expect(short.deltas).toEqual(["cut "]);
  });
});
