import { describe, expect, it } from "vitest";
import { ruleMatches, runScripted } from "../../src/runtimes/scripted";
import { agentWith, runInput } from "./fixtures";

const scripted = (rules: unknown[]) => agentWith({ type: "scripted", rules });

describe("ruleMatches", () => {
  it("knows *, case-insensitive substrings and /regex/flags", () => {
    expect(ruleMatches("*", "")).toBe(true);
    expect(ruleMatches("PING", "say ping now")).toBe(true);
    expect(ruleMatches("pong", "say ping now")).toBe(false);
    expect(ruleMatches("/^hello\\s+world$/i", "Hello   World")).toBe(true);
    expect(ruleMatches("/^hello$/", "Hello")).toBe(false);
    expect(ruleMatches("/ping/", "no match here")).toBe(false);
  });
});

describe("runScripted", () => {
  it("answers with the first matching rule, templating {{message}}", async () => {
    const agent = scripted([
      { match: "ping", reply: "pong" },
      { match: "*", reply: "Got it: {{message}} ({{unknown}})" },
    ]);
    const ping = await runScripted(runInput(agent, "a PING for you"));
    expect(ping).toMatchObject({ kind: "done", text: "pong" });

    const input = runInput(agent, "hello there");
    const other = await runScripted(input);
    if (other.kind !== "done") throw new Error(`expected done, got ${JSON.stringify(other)}`);
    expect(other.text).toBe("Got it: hello there ({{unknown}})");
    expect(other.messages).toEqual([
      expect.objectContaining({
        role: "assistant",
        content: [{ type: "text", text: other.text }],
        model: "scripted/default",
        provider: "scripted",
        stopReason: "stop",
        usage: { input: 3, output: 9, totalTokens: 12 },
        runId: input.runId,
      }),
    ]);
    expect(other.usage).toEqual({ input: 3, output: 9, total: 12 });
    expect(input.calls).toEqual([]);
  });

  it("matches regular expressions", async () => {
    const agent = scripted([
      { match: "/^count (\\d+)$/", reply: "a number" },
      { match: "*", reply: "not a number" },
    ]);
    expect(await runScripted(runInput(agent, "count 42"))).toMatchObject({ text: "a number" });
    expect(await runScripted(runInput(agent, "count forty-two"))).toMatchObject({ text: "not a number" });
  });

  it("matches the run's context as well as the message", async () => {
    const agent = scripted([
      { match: "announce step", reply: "ANNOUNCE_SKIP" },
      { match: "*", reply: "plain" },
    ]);
    const plain = await runScripted(runInput(agent, "hi"));
    const announce = await runScripted(runInput(agent, "hi", { context: "This is the announce step." }));
    expect(plain).toMatchObject({ text: "plain" });
    expect(announce).toMatchObject({ text: "ANNOUNCE_SKIP" });
  });

  it("runs a tool call rule: callTool with templated args, its refused result flagged isError, then the reply with {{result}}", async () => {
    const agent = scripted([
      {
        match: "status",
        toolCall: { name: "session_status", args: { sessionKey: "{{message}}", verbose: true } },
        reply: "Status: {{result}}",
      },
    ]);
    const failure = { status: "forbidden", error: "not visible", model: "gpt-test" };
    const input = runInput(agent, "status agent:main:main", { toolResult: failure });
    const outcome = await runScripted(input);
    expect(input.calls).toEqual([
      { name: "session_status", args: { sessionKey: "status agent:main:main", verbose: true } },
    ]);
    if (outcome.kind !== "done") throw new Error(`expected done, got ${JSON.stringify(outcome)}`);
    expect(outcome.text).toBe(`Status: ${JSON.stringify(failure)}`);
    const [call, result, reply, ...rest] = outcome.messages;
    expect(rest).toEqual([]);
    expect(call).toMatchObject({
      role: "assistant",
      stopReason: "toolUse",
      content: [
        {
          type: "toolCall",
          name: "session_status",
          arguments: { sessionKey: "status agent:main:main", verbose: true },
        },
      ],
    });
    const callId = Array.isArray(call?.content) ? call.content[0]?.id : undefined;
    expect(callId).toEqual(expect.any(String));
    expect(result).toMatchObject({
      role: "toolResult",
      toolCallId: callId,
      toolName: "session_status",
      content: [{ type: "text", text: JSON.stringify(failure) }],
      isError: true,
    });
    expect(reply).toMatchObject({
      role: "assistant",
      content: [{ type: "text", text: outcome.text }],
      stopReason: "stop",
      runId: input.runId,
    });
  });

  it("answers the tool result itself when a tool call rule has no reply", async () => {
    const agent = scripted([{ match: "*", toolCall: { name: "sessions_list" } }]);
    const input = runInput(agent, "list", { toolResult: { sessions: [] } });
    const outcome = await runScripted(input);
    expect(input.calls).toEqual([{ name: "sessions_list", args: {} }]);
    expect(outcome).toMatchObject({ kind: "done", text: '{"sessions":[]}' });
  });

  it("streams its reply as one delta after its tool call, and no delta for an empty reply", async () => {
    const agent = scripted([
      { match: "list", toolCall: { name: "sessions_list" }, reply: "Found: {{result}}" },
      { match: "quiet", reply: "" },
    ]);
    const deltas: string[] = [];
    const deltasAtToolCall: string[][] = [];
    const input = runInput(agent, "list", {
      onDelta: (text) => deltas.push(text),
      callTool: async () => {
        deltasAtToolCall.push([...deltas]);
        return { sessions: [] };
      },
    });
    expect(await runScripted(input)).toMatchObject({ kind: "done", text: 'Found: {"sessions":[]}' });
    expect(deltasAtToolCall).toEqual([[]]);
    expect(deltas).toEqual(['Found: {"sessions":[]}']);
    const quiet: string[] = [];
    expect(
      await runScripted(runInput(agent, "quiet", { onDelta: (text) => quiet.push(text) })),
    ).toMatchObject({
      kind: "done",
      text: "",
    });
    expect(quiet).toEqual([]);
  });

  it("answers an empty reply when no rule matches", async () => {
    const input = runInput(scripted([{ match: "ping", reply: "pong" }]), "hello");
    expect(await runScripted(input)).toEqual({ kind: "done", text: "", messages: [] });
    expect(await runScripted(runInput(scripted([]), "hello"))).toEqual({
      kind: "done",
      text: "",
      messages: [],
    });
  });

  it("rejects a rule that is not a valid regular expression when the configuration loads", () => {
    expect(() => scripted([{ match: "/(unclosed/", reply: "never" }])).toThrow(
      /not a valid \/regular expression\//,
    );
  });

  it("fails the run, instead of throwing, on an invalid regular expression that got past validation", async () => {
    const valid = scripted([{ match: "*", reply: "never" }]);
    const agent = {
      ...valid,
      runtime: { type: "scripted" as const, rules: [{ match: "/(unclosed/", reply: "never" }] },
    };
    expect(await runScripted(runInput(agent, "hi"))).toEqual({
      kind: "failed",
      error: expect.stringContaining("/(unclosed/"),
      retryable: false,
    });
  });
});
