import { describe, expect, it } from "vitest";
import { buildSystemPrompt } from "../../src/prompt/system-prompt";
import { buildCompletion, completionMessage } from "../../src/subagents/completion";
import { EMPTY_STATE, judgeStructuredOutput, structuredOutcome } from "../../src/subagents/structured-result";
import { subagentTaskMessage } from "../../src/subagents/task-message";

const SCHEMA = { type: ["object", "null"], required: ["n"], properties: { n: { type: "number" } } };

describe("a collector's structured result (SPEC §15)", () => {
  it("records a valid null, and what the run's end then reports; nothing recorded reports why", () => {
    const judged = judgeStructuredOutput(SCHEMA, EMPTY_STATE, null);
    expect(judged.answer).toEqual({ status: "recorded" });
    expect(structuredOutcome(judged.state)).toEqual({ structured: null });
    expect(structuredOutcome(EMPTY_STATE)).toEqual({ schemaError: "structured_output was not called" });
    const invalid = judgeStructuredOutput(SCHEMA, EMPTY_STATE, { n: "one" });
    expect(structuredOutcome(invalid.state).schemaError).toMatch(/^structured_output validation failed: n: /);
  });

  it("travels in the completion next to the raw final text, which the message still shows", () => {
    const base = {
      childKey: "agent:research:subagent:c",
      childSessionId: "s",
      runId: "r",
      title: "count",
      reply: "raw text",
      messages: [],
      runtimeMs: 1000,
    };
    const done = buildCompletion({ ...base, status: "ok", structured: { n: 1 } });
    expect(done).toMatchObject({ result: "raw text", structured: { n: 1 } });
    expect(done).not.toHaveProperty("schemaError");
    const failed = buildCompletion({
      ...base,
      status: "error",
      error: "structured_output was not called",
      schemaError: "structured_output was not called",
    });
    expect(failed).toMatchObject({
      result: "raw text",
      statusText: "failed: structured_output was not called",
      schemaError: "structured_output was not called",
    });
    expect(failed).not.toHaveProperty("structured");
    expect(completionMessage(failed)).toContain("raw text");
  });

  it("tells a collector with a schema to call structured_output once, with one retry", () => {
    const started = { kind: "subagent" as const, depth: 1, maxDepth: 1, requesterKey: "agent:main:main" };
    const prompt = (collect?: { outputSchema?: Record<string, unknown> }) =>
      buildSystemPrompt({
        agent: {},
        session: { key: "agent:research:subagent:x", kind: "other", channel: "internal" },
        now: 0,
        started: { ...started, ...(collect ? { collect } : {}) },
      });
    const plain = prompt();
    expect(plain).toContain("announced to the requester automatically");
    expect(plain).not.toContain("structured_output");
    const collector = prompt({});
    expect(collector).not.toContain("announced");
    expect(collector).not.toContain("structured_output");
    const structured = prompt({ outputSchema: SCHEMA });
    expect(structured).toContain('call the structured_output tool exactly once as {"result": ...}');
    expect(structured).toContain("retry once");
    // The task itself is never in the system prompt: it is the first visible message.
    expect(subagentTaskMessage("do it")).toBe("[Subagent Task]: do it");
  });
});
