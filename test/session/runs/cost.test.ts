import { describe, expect, it } from "vitest";
import {
  createSession,
  drive,
  getRun,
  type SessionRow,
  sendMessage,
  tool,
  uid,
  waitRun,
} from "../../support";
import { completionsAfter, requester, spawnOk, textOf } from "../../support/subagents";

/** The session's own sessions_list row. */
async function listRow(key: string): Promise<SessionRow> {
  const [row] = (await tool("sessions_list", key, { search: key })).sessions;
  if (!row) throw new Error(`${key} is not listed`);
  return row;
}

/** One run of `text` in the session, ended and listed. */
async function runEnded(key: string, text: string) {
  const runId = await sendMessage(key, text);
  await waitRun(runId);
  await drive([key]);
  return getRun(runId);
}

// model-priced: $100 / $300 per million tokens; the fake model reports 11 in + 7 out per call, so
// 11 × 0.0001 + 7 × 0.0003 = $0.0032 a run (test/support/test-config.ts).
describe("estimated cost from a runtime's pricing (SPEC §20)", () => {
  it("is on the run, summed on session_status and the list row", async () => {
    const key = `agent:model-priced:cost-${uid()}`;
    await createSession({ agentId: "model-priced", key });
    const first = await runEnded(key, "what does this cost");
    expect(first.usage).toEqual({ input: 11, output: 7, total: 18, estimatedCostUsd: 0.0032 });
    expect(first).toMatchObject({ model: "priced-model", provider: "openai" });
    expect((await listRow(key)).estimatedCostUsd).toBe(0.0032);

    await runEnded(key, "and again");
    const status = await tool("session_status", key);
    expect(status.estimatedCostUsd).toBe(0.0064);
    expect(status.statusText).toContain("\nCost: est $0.0064\n");
    expect(status.statusText).toContain("Model: priced-model\n");
    expect((await listRow(key)).estimatedCostUsd).toBe(0.0064);
  });

  it("is absent, never 0, without pricing", async () => {
    const key = `agent:model-echo:cost-${uid()}`;
    await createSession({ agentId: "model-echo", key });
    const run = await runEnded(key, "free of charge?");
    expect(run.usage?.estimatedCostUsd).toBeUndefined();
    const status = await tool("session_status", key);
    expect(status.estimatedCostUsd).toBeUndefined();
    expect(status.statusText).not.toContain("Cost:");
    expect((await listRow(key)).estimatedCostUsd).toBeUndefined();
  });

  it("ends a completion's stats line as OpenClaw's does: `est $<cost>` after the tokens", async () => {
    const r = await requester("spawner", "cost");
    const { child } = await spawnOk(r, { task: "price this", agentId: "model-priced" });
    const [completion] = await completionsAfter(r, [r, child]);
    expect(textOf(completion).split("\n").at(-1)).toMatch(
      /^runtime \d+s • tokens 18 \(in 11 \/ out 7\) • est \$0\.0032$/,
    );
  });
});
