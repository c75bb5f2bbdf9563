import { describe, expect, it } from "vitest";
import { agentContextWindow, DEFAULT_CONTEXT_WINDOW, knownContextWindow } from "../../../src/config/agents";
import { estimateTokens, messageTokens } from "../../../src/history/token-estimate";
import { TRUNCATION_MARKER } from "../../../src/history/truncate";
import { splitTurns } from "../../../src/session/runs/compaction";
import { promptBudget, selectHistory } from "../../../src/session/runs/context-budget";
import type { SeqMessage } from "../../../src/session/transcript/run-history";
import type { TranscriptMessage } from "../../../src/transcript/message";
import { agentWith, LOOKUP_TOOL } from "../../runtimes/fixtures";

/** Messages oldest first, numbered by seq from 1; `texts[i]` is message i's text, roles alternating. */
function transcript(texts: string[]): SeqMessage[] {
  return texts.map((text, index) => ({
    seq: index + 1,
    message: {
      id: `m${index + 1}`,
      role: index % 2 === 0 ? "user" : "assistant",
      content: text,
      timestamp: index,
    } as TranscriptMessage,
  }));
}
const newestFirst = (rows: SeqMessage[]) => [...rows].reverse();
const total = (messages: TranscriptMessage[]) => messages.reduce((sum, each) => sum + messageTokens(each), 0);
const short = (n: number) => `short message ${String(n).padStart(26, "0")}`; // 40 characters: 14 tokens

describe("the context budget (SPEC §20)", () => {
  it("takes history newest first by tokens: a long message displaces many short ones, never over budget", () => {
    const shorts = transcript(Array.from({ length: 30 }, (_, n) => short(n)));
    expect(messageTokens(shorts[0]?.message as TranscriptMessage)).toBe(14);
    // All 30 fit in 1,000 tokens: not a fixed number of messages, whatever fits.
    const all = selectHistory(newestFirst(shorts), 1000);
    expect(all.map((each) => each.id)).toEqual(shorts.map((row) => row.message.id));

    // The newest message now 3,000 characters (754 tokens): it and the 17 shorts before it fit, no more.
    const long = transcript([...Array.from({ length: 30 }, (_, n) => short(n)), "x".repeat(3000)]);
    const taken = selectHistory(newestFirst(long), 1000);
    expect(taken.map((each) => each.id)).toEqual(long.slice(-18).map((row) => row.message.id));
    expect(total(taken)).toBeLessThanOrEqual(1000);
    expect(total(taken) + 14).toBeGreaterThan(1000);
    // Token by token: one short message less room, one short message less taken.
    expect(selectHistory(newestFirst(long), 754 + 16 * 14)).toHaveLength(17);
    expect(selectHistory(newestFirst(long), 754 + 16 * 14 - 1)).toHaveLength(16);
    // The long one alone does not fit: nothing older is taken past it (a history never has a gap).
    expect(selectHistory(newestFirst(long), 700)).toEqual([]);
  });

  it("represents a message too large for any prompt by its truncated safe view, with a secret masked", () => {
    const huge = `token sk-1234567890abcdef1234 ${"y".repeat(20_000)}`;
    const [taken] = selectHistory(newestFirst(transcript([huge])), 2000);
    expect(taken?.id).toBe("m1");
    const text = taken?.content as string;
    expect(text.endsWith(TRUNCATION_MARKER)).toBe(true);
    expect(text).not.toContain("sk-1234567890abcdef1234");
    expect(messageTokens(taken as TranscriptMessage)).toBeLessThanOrEqual(2000);
    // A message that fits any prompt is never cut, even when it is the one that no longer fits.
    expect(selectHistory(newestFirst(transcript(["z".repeat(1000)])), 100)).toEqual([]);
  });

  it("is the window less the output allowance, the system prompt and the tool definitions", () => {
    const agent = agentWith({ type: "openai", model: "fake-model", maxOutputTokens: 1000 });
    expect(agentContextWindow(agent)).toBe(DEFAULT_CONTEXT_WINDOW);
    expect(DEFAULT_CONTEXT_WINDOW).toBe(128_000);
    const system = "s".repeat(400);
    expect(promptBudget(agent, system, [])).toBe(128_000 - 1000 - 100);
    expect(promptBudget(agent, system, [LOOKUP_TOOL])).toBe(
      128_000 - 1000 - 100 - estimateTokens(JSON.stringify([LOOKUP_TOOL])),
    );
    // Without maxOutputTokens, 4,096 tokens are kept for the answer; a scripted agent too.
    expect(promptBudget(agentWith({ type: "openai", model: "fake-model" }), "", [])).toBe(128_000 - 4096);
    expect(promptBudget(agentWith({ type: "scripted" }), "", [])).toBe(128_000 - 4096);
  });

  it("knows well-known models' windows; contextWindow wins", () => {
    expect(knownContextWindow("claude-sonnet-4-5")).toBe(200_000);
    expect(knownContextWindow("anthropic/claude-3-5-haiku-latest")).toBe(200_000);
    expect(knownContextWindow("gpt-4o-mini")).toBe(128_000);
    expect(knownContextWindow("gpt-4.1-mini")).toBe(1_047_576);
    expect(knownContextWindow("@cf/meta/llama-3.1-8b-instruct")).toBeUndefined();
    expect(agentContextWindow(agentWith({ type: "openai", model: "gpt-4.1" }))).toBe(1_047_576);
    const own = { ...agentWith({ type: "openai", model: "gpt-4.1" }), contextWindow: 50_000 };
    expect(agentContextWindow(own)).toBe(50_000);
  });
});

describe("splitting for a compaction", () => {
  const turns = transcript(["q1", "a1", "q2", "a2", "q3", "a3", "q4", "a4"]);

  it("keeps the newest whole turns within the share, and always the newest one", () => {
    const perTurn = 2 * messageTokens({ content: "q1" });
    const twoTurns = splitTurns(newestFirst(turns), 2 * perTurn, Number.POSITIVE_INFINITY);
    expect(twoTurns.kept.map((row) => row.message.id)).toEqual(["m8", "m7", "m6", "m5"]);
    expect(twoTurns.older.map((row) => row.message.id)).toEqual(["m4", "m3", "m2", "m1"]);
    expect(splitTurns(newestFirst(turns), 0, Number.POSITIVE_INFINITY).kept).toHaveLength(2);
    // One turn is nothing older to summarize.
    expect(splitTurns(newestFirst(turns.slice(0, 2)), 0, Number.POSITIVE_INFINITY).older).toEqual([]);
  });

  it("keeps every message from a running or queued run's trigger on", () => {
    const split = splitTurns(newestFirst(turns), 0, 3);
    expect(split.kept.map((row) => row.seq)).toEqual([8, 7, 6, 5, 4, 3]);
    expect(split.older.map((row) => row.seq)).toEqual([2, 1]);
  });
});
