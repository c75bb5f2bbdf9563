import { describe, expect, it } from "vitest";
import { messageTokens } from "../../../src/history/token-estimate";
import type { SessionEvent } from "../../../src/session/api";
import { SUMMARY_HEADER, SUMMARY_REQUEST, SUMMARY_SYSTEM_PROMPT } from "../../../src/session/runs/compaction";
import {
  ADMIN,
  call,
  createSession,
  getSession,
  importMessages,
  type ModelRequest,
  modelRequests,
  msg,
  sendMessage,
  sessionPath,
  tool,
  transcript,
  uid,
  waitRun,
} from "../../support";

// Both agents (test/support/test-config.ts): a 4,000-token window, 500 kept for the answer.
const WINDOW = 4000;
const OUTPUT = 500;

/** 40 messages of about 100 tokens each, alternating user and assistant: more than the window holds. */
function longChat(marker: string) {
  return Array.from({ length: 40 }, (_, n) =>
    msg(
      `${marker}-${n}`,
      n % 2 === 0 ? "user" : "assistant",
      `${marker} turn ${n}: ${"lorem ipsum ".repeat(32)}`,
      n + 1,
    ),
  );
}

type Sent = { role: string; content: string };
const sentMessages = (request: ModelRequest | undefined) => (request?.messages ?? []) as Sent[];
/** A request's estimated tokens, as the budget counts them. */
const promptTokens = (messages: Sent[]) => messages.reduce((sum, each) => sum + messageTokens(each), 0);

/** The session's card and every event of its log (session_status changesSince 0, asked as itself). */
async function statusOf(key: string) {
  const status = await tool("session_status", key, { changesSince: 0 });
  return status as typeof status & { statusText: string; stateChanges?: { events: SessionEvent[] } };
}

async function chatWith(agentId: string) {
  const marker = `c${uid()}`;
  const key = `agent:${agentId}:api:${marker}`;
  await createSession({ agentId, key });
  const imported = longChat(marker);
  await importMessages(key, imported);
  const runId = await sendMessage(key, `${marker} next question`);
  const run = await waitRun(runId);
  return { key, marker, imported, runId, run };
}

describe("automatic compaction (SPEC §20)", () => {
  it("summarizes the older turns with the agent's model first; the prompt starts from the summary and fits the window", async () => {
    const { key, marker, imported, runId, run } = await chatWith("model-compact");
    expect(run).toMatchObject({ status: "ok", reply: `${marker} next question` });

    const [summarizing, prompt, ...more] = await modelRequests("model-compact", marker);
    expect(more).toEqual([]);
    // The summarizing call: the agent's runtime, its own system prompt, no tools, the older turns.
    const asked = sentMessages(summarizing);
    expect(asked[0]).toEqual({ role: "system", content: SUMMARY_SYSTEM_PROMPT });
    expect(asked.at(-1)).toEqual({ role: "user", content: SUMMARY_REQUEST });
    expect(summarizing).not.toHaveProperty("tools");

    // The run's prompt: its system prompt, the summary (the echo model answered the request), then the
    // newest turns verbatim, then the new message; all of it within the window less the answer's share.
    const whole = sentMessages(prompt);
    // The run's system prompt (src/prompt/system-prompt.ts) comes first, when it has one.
    const sent = whole.filter((each) => each.role !== "system");
    expect(sent[0]).toEqual({ role: "user", content: `${SUMMARY_HEADER}\n\n${SUMMARY_REQUEST}` });
    expect(sent.at(-2)?.content).toBe(imported[39]?.content);
    expect(sent.at(-1)).toEqual({ role: "user", content: `${marker} next question` });
    const verbatim = sent.slice(1, -1).map((each) => each.content);
    expect(verbatim).toEqual(imported.slice(40 - verbatim.length).map((each) => each.content));
    expect(verbatim.length).toBeGreaterThan(0);
    // What was summarized: the turns just before the kept ones, as many as the summarizing call holds.
    const kept = 40 - verbatim.length;
    const summarized = asked.slice(1, -1).map((each) => each.content);
    expect(summarized.length).toBeGreaterThan(10);
    expect(summarized).toEqual(imported.slice(kept - summarized.length, kept).map((each) => each.content));
    expect(promptTokens(asked)).toBeLessThanOrEqual(WINDOW - OUTPUT);
    expect(promptTokens(sent)).toBeLessThanOrEqual(WINDOW - OUTPUT);

    // The transcript keeps every original message: the export is what was imported, then the run's turn.
    const stored = await transcript(key);
    expect(stored.slice(0, 40)).toEqual(imported);
    expect(stored.slice(40).map((each) => each.role)).toEqual(["user", "assistant"]);
    const history = await call<{ messages: unknown[] }>("GET", sessionPath(key, "/history?limit=100"), {
      token: ADMIN,
    });
    expect(history.json.messages).toHaveLength(42);

    // The compacted event (OpenClaw's summary and dedupe key), the count on the row and the card.
    const status = await statusOf(key);
    const compacted = status.stateChanges?.events.filter((event) => event.kind === "compacted") ?? [];
    expect(compacted).toEqual([
      expect.objectContaining({
        kind: "compacted",
        actor: { type: "system" },
        runId,
        summary: "session compacted",
        data: expect.objectContaining({ dedupeKey: `compacted:${compacted[0]?.data?.operationId}` }),
      }),
    ]);
    expect(status.statusText).toContain("• Compactions: 1");
    expect((await getSession(key)).json.compactionCount).toBe(1);

    // The next run starts from the same summary and does not compact again.
    await waitRun(await sendMessage(key, `${marker} and then`));
    const [, , again, ...none] = await modelRequests("model-compact", marker);
    expect(none).toEqual([]);
    expect(sentMessages(again).find((each) => each.role !== "system")?.content).toBe(
      `${SUMMARY_HEADER}\n\n${SUMMARY_REQUEST}`,
    );
    expect((await getSession(key)).json.compactionCount).toBe(1);
  });

  it("a compaction that fails leaves the session as it was, and the run goes on with the budgeted history", async () => {
    const { key, marker, imported, run } = await chatWith("model-compact-fails");
    expect(run).toMatchObject({ status: "ok", reply: `${marker} next question` });

    const [refused, prompt, ...more] = await modelRequests("model-compact-fails", marker);
    expect(more).toEqual([]);
    expect(sentMessages(refused)[0]).toEqual({ role: "system", content: SUMMARY_SYSTEM_PROMPT });
    // No summary: the newest messages the budget holds, newest included, far fewer than all 40.
    const whole = sentMessages(prompt);
    const history = whole
      .filter((each) => each.role !== "system")
      .slice(0, -1)
      .map((each) => each.content);
    expect(history).toEqual(imported.slice(40 - history.length).map((each) => each.content));
    expect(history.length).toBeGreaterThan(10);
    expect(history.length).toBeLessThan(40);
    expect(promptTokens(whole)).toBeLessThanOrEqual(WINDOW - OUTPUT);

    const status = await statusOf(key);
    expect(status.stateChanges?.events.map((event) => event.kind)).not.toContain("compacted");
    expect(status.statusText).toContain("• Compactions: 0");
    expect((await getSession(key)).json).not.toHaveProperty("compactionCount");
    expect((await transcript(key)).slice(0, 40)).toEqual(imported);
  });
});
