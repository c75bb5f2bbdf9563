import { describe, expect, it } from "vitest";
import {
  call,
  createSession,
  deferredRun,
  drive,
  getSession,
  type RunWaitResult,
  sendMessage,
  tool,
  transcript,
  uid,
  waitRun,
} from "../../support";

describe("what runs write to the transcript (OpenClaw's message shape)", () => {
  it("openai: text and tool calls as blocks, model after the override, provider, stopReason, per-call usage, isError; totalTokens is the last call's", async () => {
    const key = `agent:model-tools:shape-${uid()}`;
    await createSession({ agentId: "model-tools", key });
    await tool("session_status", key, { model: "scripted/research" });
    const runId = await sendMessage(key, "{}");
    expect(await waitRun(runId)).toMatchObject({ status: "ok" });

    // The fake model answers two calls of 10 + 5 tokens: sessions_list, then its text.
    const callUsage = { input: 10, output: 5, totalTokens: 15 };
    const by = { model: "scripted/research", provider: "openai", runId };
    const [, call1, result, answer, ...rest] = await transcript(key);
    expect(rest).toEqual([]);
    expect(call1).toEqual({
      id: expect.any(String),
      role: "assistant",
      content: [{ type: "toolCall", id: "call_1", name: "sessions_list", arguments: {} }],
      ...by,
      stopReason: "toolUse",
      usage: callUsage,
      timestamp: expect.any(Number),
    });
    expect(result).toMatchObject({ role: "toolResult", toolCallId: "call_1", isError: false, runId });
    const text = answer?.content;
    expect(text).toEqual([{ type: "text", text: expect.stringMatching(/^tool said: \{"count":1,/) }]);
    expect(answer).toEqual({
      id: expect.any(String),
      role: "assistant",
      content: text,
      ...by,
      stopReason: "stop",
      usage: callUsage,
      timestamp: expect.any(Number),
    });

    // The safe view keeps the blocks and who answered, never the accounting.
    const history = await tool("sessions_history", key, { sessionKey: key });
    expect(history.messages.at(-1)).toEqual({
      id: answer?.id,
      role: "assistant",
      content: text,
      ...by,
      stopReason: "stop",
      timestamp: answer?.timestamp,
    });

    // totalTokens: what the last call had in context; the lifetime sums stay in/out.
    await drive([key]);
    const tokens = { inputTokens: 20, outputTokens: 10, totalTokens: 15 };
    expect((await getSession(key)).json).toMatchObject(tokens);
    const listed = await tool("sessions_list", key, { search: key, includeLastMessage: true });
    // Readers take the blocks: the preview is the answer's text.
    expect(listed.sessions[0]).toMatchObject({
      ...tokens,
      lastMessagePreview: expect.stringMatching(/^tool said: \{"count":1,/),
    });
  });

  it("webhook: a posted result is stored as a text block with the agent's model, provider webhook and its usage", async () => {
    const key = `agent:hook-async-rec:shape-${uid()}`;
    await createSession({ agentId: "hook-async-rec", key });
    const runId = await sendMessage(key, "long job");
    const post = await deferredRun(key, runId);
    const posted = await call<RunWaitResult>("POST", `/v1/runs/${runId}/result`, {
      token: post.runToken,
      body: { text: "finished", usage: { input: 100, output: 20 } },
    });
    expect(posted.json.status).toBe("ok");
    expect((await transcript(key)).at(-1)).toEqual({
      id: expect.any(String),
      role: "assistant",
      content: [{ type: "text", text: "finished" }],
      model: "webhook",
      provider: "webhook",
      stopReason: "stop",
      usage: { input: 100, output: 20, totalTokens: 120 },
      timestamp: expect.any(Number),
      runId,
    });
  });
});
