import { describe, expect, it } from "vitest";
import { createSession, getRun, recorded, sendMessage, transcript, uid, waitRun } from "../support";
import { rowsInEveryShard } from "../support/shards";

/**
 * The Messages API requests anthropic-spawn-rec made for one task's run (each test's task is unique). The
 * child's completion starts a later run of the same session, whose requests carry the task too, after
 * the whole first run (its question, tool call, result and answer): left out, however soon it comes.
 */
async function messagesCalls(task: string) {
  return (
    await recorded<{ messages: unknown[]; thinking?: unknown; tools?: Array<{ name: string }> }>(
      "anthropic-spawn-rec",
    )
  ).filter((request) => request.body.includes(task) && request.json.messages.length <= 3);
}

describe("anthropic runtime through the Worker (anthropic-spawn-rec)", () => {
  it("records its tool call, and replays it when the model is overloaded after it: one spawn, one answer", async () => {
    const key = `agent:anthropic-spawn-rec:replay-${uid()}`;
    await createSession({ agentId: "anthropic-spawn-rec", key });
    const task = `weigh the parcels ${uid()}`;
    const runId = await sendMessage(key, JSON.stringify({ task, agentId: "research" }));
    const ended = await waitRun(runId);
    expect(ended).toMatchObject({ status: "ok" });

    // tool_use (spawn) → 529 after the tool_result → retried: tool_use again (replayed) → the answer.
    const calls = await messagesCalls(task);
    expect(calls).toHaveLength(4);
    for (const call of calls) {
      expect(call.headers["x-api-key"]).toBe("fmk-0123456789abcdefghijklmnopqrstuv");
      expect(call.headers["cf-aig-authorization"]).toBe("fmk-0123456789abcdefghijklmnopqrstuv");
      expect(call.json.thinking).toEqual({ type: "enabled", budget_tokens: 4096 });
      expect(call.json.tools?.map((tool) => tool.name)).toContain("sessions_spawn");
    }
    const run = await getRun(runId);
    expect(run.retries).toEqual([expect.stringContaining("model API answered HTTP 529")]);
    const children = await rowsInEveryShard<{ session_key: string }>(
      "SELECT session_key FROM session_index WHERE spawned_by = ?",
      key,
    );
    expect(children).toHaveLength(1);
    expect(run.usage).toMatchObject({ input: 22, output: 14, total: 52 });

    // The run's own messages (the child's completion comes in later, as a message of its own).
    const messages = (await transcript(key)).filter((message) => message.runId === runId);
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    const [, call, result, answer] = messages;
    expect(call).toMatchObject({
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      stopReason: "toolUse",
      // Each message carries its call's cache usage, as Anthropic reported it.
      usage: { input: 11, output: 7, cacheRead: 3, cacheWrite: 5, totalTokens: 26 },
      content: [
        { type: "text", text: "Looking it up." },
        { type: "toolCall", id: "toolu_1", name: "sessions_spawn", arguments: { task, agentId: "research" } },
      ],
    });
    expect(result).toMatchObject({ toolCallId: "toolu_1", toolName: "sessions_spawn", runId });
    expect(answer?.content).toEqual([{ type: "text", text: expect.stringMatching(/^tool said: /) }]);
    expect(JSON.stringify(answer?.content)).toContain(children[0]?.session_key ?? "no child");
  });
});
