import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { interSessionTurn } from "../../../src/messaging/inter-session";
import type { ReplyFlow } from "../../../src/session/api";
import type { SessionObject } from "../../../src/session/session-object";
import { createSession, deferredRun, sendMessage, session, stub, uid } from "../../support";

/** The run_index entry the session owes for `runId`, and whether it is held past now. */
const owedRunRow = (key: string, runId: string) =>
  runInDurableObject(stub(key), (_: SessionObject, state) => {
    const rows = state.storage.sql
      .exec<{ next_attempt_at: number; attempts: number; payload: string }>(
        "SELECT next_attempt_at, attempts, payload FROM outbox WHERE kind = 'run_index'",
      )
      .toArray()
      .filter((row) => row.payload.includes(runId));
    return rows.map((row) => ({ held: row.next_attempt_at > Date.now(), attempts: row.attempts }));
  });

function step(key: string, stage: ReplyFlow["stage"]) {
  const runId = crypto.randomUUID();
  const flow: ReplyFlow = {
    flowId: crypto.randomUUID(),
    requesterKey: `agent:main:flow-requester-${uid()}`,
    targetKey: key,
    originalMessage: "ping",
    maxTurns: 2,
    stepTimeoutMs: 30_000,
    hop: 1,
    stage,
    turn: stage === "request" ? 0 : 1,
  };
  const turn = interSessionTurn({
    runId,
    text: "a step",
    from: { sessionKey: flow.requesterKey },
    hop: 1,
    context: "",
    flow,
  });
  return { runId, turn };
}

describe("an exchange's later steps, queued behind a run, write their index rows with a run's end (SPEC §24)", () => {
  it("holds a reply step's run row; a caller's own turn queued behind the run is indexed at once", async () => {
    const key = `agent:hook-async-rec:flow-hold-${uid()}`;
    await createSession({ agentId: "hook-async-rec", key });
    // A run in flight: the agent answered 202 and posts its result later.
    await deferredRun(key, await sendMessage(key, "long job"));

    const ping = step(key, "ping");
    expect((await session(key).enqueueTurn(ping.turn)).ok).toBe(true);
    // Owed, never tried, and held: it goes in the batch of a run's end (or the alarm at the backstop).
    expect(await owedRunRow(key, ping.runId)).toEqual([{ held: true, attempts: 0 }]);

    const request = step(key, "request");
    expect((await session(key).enqueueTurn(request.turn)).ok).toBe(true);
    // A caller may ask for this one by its id at once: its row is written now, not held.
    expect(await owedRunRow(key, request.runId)).toEqual([]);
  });
});
