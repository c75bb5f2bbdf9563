import { describe, expect, it } from "vitest";
import {
  createSession,
  drive,
  getRun,
  modelCalls,
  type SessionRow,
  sendMessage,
  tool,
  transcript,
  uid,
  waitRun,
} from "../../support";

const modelError = (status: number) =>
  `model API answered HTTP ${status}: {"error":{"message":"fake model status ${status}"}}`;

/** The model requests one recording got for one message text. */
async function callsFor(recordId: string, text: string) {
  return (await modelCalls(recordId)).filter((request) =>
    request.json?.messages?.some((message) => message.content === text),
  );
}

/** The session's own sessions_list row. */
async function listRow(key: string): Promise<SessionRow> {
  const [row] = (await tool("sessions_list", key, { search: key })).sessions;
  if (!row) throw new Error(`${key} is not listed`);
  return row;
}

/** A new session of `agentId` with one run of `text`, ended; the run and its session's key. */
async function runOnce(agentId: string, text: string) {
  const key = `agent:${agentId}:fb-${uid()}`;
  await createSession({ agentId, key });
  const runId = await sendMessage(key, text);
  await waitRun(runId);
  await drive([key]);
  return { key, run: await getRun(runId) };
}

describe("fallbacks: the next runtime answers when a call still fails retryably after its retries", () => {
  for (const status of [503, 429]) {
    it(`a primary answering ${status} falls back; the fallback's model is on the message, the run and the card`, async () => {
      const agentId = `fallback-${status}`;
      const text = `fall back ${uid()}`;
      const { key, run } = await runOnce(agentId, text);

      expect(run).toMatchObject({
        status: "ok",
        reply: text,
        model: "fallback-model",
        provider: "openai",
        retries: [
          `attempt 1 failed: ${modelError(status)}`,
          `attempt 2 failed: ${modelError(status)}`,
          `primary-model (openai) failed: ${modelError(status)}; falling back to fallback-model (openai)`,
        ],
      });
      // The primary got its three attempts, the fallback one, asked for its own model.
      expect(await callsFor(`${agentId}-primary`, text)).toHaveLength(3);
      const [fallbackCall, ...more] = await callsFor(`${agentId}-fallback`, text);
      expect(more).toEqual([]);
      expect(fallbackCall?.json.model).toBe("fallback-model");

      const reply = (await transcript(key)).at(-1);
      expect(reply).toMatchObject({ role: "assistant", model: "fallback-model", provider: "openai" });
      const card = (await tool("session_status", key)).statusText;
      expect(card).toContain("Model: fallback-model (fallback)");
      expect((await listRow(key)).model).toBe("fallback-model");
    });
  }

  it("a session's model override applies to the primary only, and the card names the fallback that answered", async () => {
    const key = `agent:fallback-503:fb-${uid()}`;
    await createSession({ agentId: "fallback-503", key });
    await tool("session_status", key, { model: "scripted/research" });
    const text = `override ${uid()}`;
    const runId = await sendMessage(key, text);
    await waitRun(runId);
    await drive([key]);
    const [primaryCall] = await callsFor("fallback-503-primary", text);
    expect(primaryCall?.json.model).toBe("scripted/research");
    const [fallbackCall] = await callsFor("fallback-503-fallback", text);
    expect(fallbackCall?.json.model).toBe("fallback-model");
    expect(await getRun(runId)).toMatchObject({ status: "ok", model: "fallback-model" });
    expect((await tool("session_status", key)).statusText).toContain("Model: fallback-model (fallback)");
  });

  it("a 400 does not fall back: the run ends error after one call", async () => {
    const text = `bad request ${uid()}`;
    const { run } = await runOnce("fallback-400", text);
    expect(run).toMatchObject({ status: "error", error: modelError(400), retries: [] });
    expect(run.model).toBeUndefined();
    expect(await callsFor("fallback-400-primary", text)).toHaveLength(1);
    expect(await callsFor("fallback-400-fallback", text)).toEqual([]);
  });

  it("when every runtime fails the run ends error naming the last failure, each switch recorded", async () => {
    const text = `all down ${uid()}`;
    const { key, run } = await runOnce("fallback-all", text);
    expect(run).toMatchObject({ status: "error", error: modelError(500) });
    expect(run.retries.filter((note) => note.includes("falling back"))).toEqual([
      `primary-model (openai) failed: ${modelError(503)}; falling back to fallback-model (openai)`,
      `fallback-model (openai) failed: ${modelError(502)}; falling back to last-model (openai)`,
    ]);
    // Three runtimes, three attempts each: two retries per runtime, two switches.
    expect(run.retries).toHaveLength(8);
    expect(await callsFor("fallback-all-last", text)).toHaveLength(3);
    // No model answered: the card names the configured one, not a fallback.
    expect((await tool("session_status", key)).statusText).toContain("Model: primary-model\n");
  });
});
