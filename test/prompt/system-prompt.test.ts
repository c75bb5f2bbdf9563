import { describe, expect, it } from "vitest";
import { agentToAgentContext } from "../../src/messaging/a2a-context";
import {
  buildSystemPrompt,
  RUN_CONTEXT_HEADER,
  type SystemPromptInput,
} from "../../src/prompt/system-prompt";
import { COMPLETION_CONTEXT } from "../../src/subagents/completion";

// 2026-03-05 14:07 UTC, a Thursday: 23:07 in Tokyo.
const NOW = Date.UTC(2026, 2, 5, 14, 7, 30);
const SESSION = {
  key: "agent:main:webchat:direct:alice",
  kind: "other",
  channel: "webchat",
  chatType: "direct",
  label: "Alice's chat",
};
const INSTRUCTIONS = "You are Ada, the support agent of Example Ltd.\nAnswer in English.";

const prompt = (input: Partial<SystemPromptInput>) =>
  buildSystemPrompt({
    agent: { instructions: INSTRUCTIONS },
    session: SESSION,
    now: NOW,
    started: { kind: "message" },
    ...input,
  });

describe("a run's system prompt (SPEC §20)", () => {
  it("is the instructions first, with nothing before them, then the run context: session and time", () => {
    expect(prompt({})).toBe(
      [
        INSTRUCTIONS,
        "",
        RUN_CONTEXT_HEADER,
        'Session: agent:main:webchat:direct:alice (kind other, channel webchat, chat type direct, label "Alice\'s chat")',
        "Current time: 2026-03-05 14:07 UTC",
      ].join("\n"),
    );
  });

  it("is the run context alone for an agent without instructions (or with blank ones)", () => {
    const bare = prompt({ agent: {} });
    expect(bare.startsWith(RUN_CONTEXT_HEADER)).toBe(true);
    expect(prompt({ agent: { instructions: "  \n" } })).toBe(bare);
    // A session without chat type or label names only what it has.
    const main = prompt({
      agent: {},
      session: { key: "agent:main:main", kind: "main", channel: "internal" },
    });
    expect(main).toContain("Session: agent:main:main (kind main, channel internal)\n");
  });

  it("gives the agent's local time when it sets a timezone", () => {
    const local = prompt({ agent: { instructions: INSTRUCTIONS, timezone: "Asia/Tokyo" } });
    expect(local).toContain("Current time: 2026-03-05 14:07 UTC; 2026-03-05 23:07 (Thursday) Asia/Tokyo");
  });

  it("adds the agent-to-agent context of an inter-session message (SPEC §5.3)", () => {
    const context = agentToAgentContext(
      { agentId: "ops", sessionKey: "agent:ops:main", channel: "internal" },
      { agentId: "main", sessionKey: SESSION.key, channel: "webchat" },
    );
    const text = prompt({ started: { kind: "inter-session", context } });
    expect(text.endsWith(`\n### Inter-session message\n${context}`)).toBe(true);
    expect(text).toContain("Agent 1 (requester): agent ops, session agent:ops:main, channel internal.");
  });

  it("adds a completion turn's context", () => {
    const text = prompt({ started: { kind: "completion", context: COMPLETION_CONTEXT } });
    expect(text.endsWith(`\n### Sub-agent completion\n${COMPLETION_CONTEXT}`)).toBe(true);
  });

  it("gives a sub-agent's first run its rules and routing context, never its task", () => {
    const started = { kind: "subagent" as const, depth: 1, maxDepth: 2, requesterKey: "agent:main:main" };
    const text = prompt({ started });
    expect(text).toContain(
      [
        "### Sub-agent",
        "You are a sub-agent at depth 1 of at most 2, role orchestrator (you may spawn sub-agents of your own).",
        "Your requester is agent:main:main. Your task is the first [Subagent Task] message.",
        "Your final answer goes to your requester as your result, never to the end user: it is announced to the requester automatically, so do not poll for it and do not message the requester.",
        "Reply exactly ANNOUNCE_SKIP if there is nothing to report.",
      ].join("\n"),
    );
    expect(text.startsWith(`${INSTRUCTIONS}\n\n`)).toBe(true);
    expect(prompt({ started: { ...started, depth: 2 } })).toContain("depth 2 of at most 2, role leaf.");
  });

  it("tells a collector it is one, and with a schema to call structured_output with that schema", () => {
    const schema = { type: "object", properties: { n: { type: "integer" } }, required: ["n"] };
    const base = { kind: "subagent" as const, depth: 1, maxDepth: 1, requesterKey: "agent:main:main" };
    const collector = prompt({ started: { ...base, collect: {} } });
    expect(collector).toContain("### Collector\nYou are a collector: your result is kept for the requester");
    expect(collector).not.toContain("structured_output");
    expect(collector).not.toContain("ANNOUNCE_SKIP");
    const structured = prompt({ started: { ...base, collect: { outputSchema: schema } } });
    expect(structured).toContain('call the structured_output tool exactly once as {"result": ...}');
    expect(structured.endsWith(`\`\`\`json\n${JSON.stringify(schema)}\n\`\`\``)).toBe(true);
  });

  it("names the scheduled job or hook that started a run, and where its output goes (SPEC §22)", () => {
    expect(
      prompt({ started: { kind: "schedule", name: "daily-digest", deliverTo: "telegram:direct:42" } }),
    ).toContain(
      [
        "### Scheduled job",
        'This run was started by the scheduled job "daily-digest", not by a person writing to you.',
        "Your final answer is delivered to telegram:direct:42.",
      ].join("\n"),
    );
    expect(prompt({ started: { kind: "hook", name: "github-push" } })).toContain(
      [
        "### Hook",
        'This run was started by the hook "github-push", not by a person writing to you.',
        "Your final answer is kept in this session and delivered nowhere.",
      ].join("\n"),
    );
  });
});
