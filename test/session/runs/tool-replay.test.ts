import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  ADMIN,
  callsArrived,
  createSession,
  getRun,
  recorded,
  sendMessage,
  stub,
  uid,
  waitRun,
} from "../../support";
import { rowsInEveryShard } from "../../support/shards";

/*
 * A run resumed after a crash replays its recorded tool calls instead of repeating their effects (issue 17,
 * item 2). model-spawn-slow calls sessions_spawn, then takes 1.5 s over its next round: the objects are
 * aborted in that window, after the spawn, as a crash or a code update would. Like interruption.test.ts,
 * this file aborts only its own objects (it runs on storage of its own: FRESH_STATE in vitest.config.ts).
 */

/** The model calls model-spawn-slow got for one task. */
async function modelCalls(task: string) {
  return (await recorded("model-spawn-slow")).filter((request) =>
    JSON.stringify(request.json).includes(task),
  );
}

/** The sub-agents a session spawned, from the index. */
async function childrenOf(sessionKey: string): Promise<string[]> {
  const results = await rowsInEveryShard<{ session_key: string }>(
    "SELECT session_key FROM session_index WHERE spawned_by = ?",
    sessionKey,
  );
  return results.map((row) => row.session_key);
}

describe("a run resumed after a crash replays its recorded tool calls", () => {
  it("spawns one sub-agent for one message, however often the run is cut after the spawn", async () => {
    const key = `agent:model-spawn-slow:replay-${uid()}`;
    await createSession({ agentId: "model-spawn-slow", key });
    const task = `count the widgets ${uid()}`;
    const runId = await sendMessage(key, JSON.stringify({ task, agentId: "research" }));

    // The spawn happened and the run is in its next (slow) model round: cut it there.
    await callsArrived("model-spawn-slow", 2, task);
    expect(await childrenOf(key)).toHaveLength(1);
    await abortAllDurableObjects();

    const ended = await waitRun(runId, 10_000, ADMIN, key);
    expect(ended).toMatchObject({ status: "ok" });
    const run = await getRun(runId);
    expect(run.attempts).toBe(2);
    expect(run.retries).toEqual(["interrupted by a restart; run again"]);
    // The resumed run asked the model again and got the same tool call: its result was replayed.
    expect((await modelCalls(task)).length).toBeGreaterThanOrEqual(3);
    const children = await childrenOf(key);
    expect(children).toHaveLength(1);
    expect(ended.reply).toContain(children[0]);
  });

  it("keeps a run's tool results only while it runs", async () => {
    const key = `agent:model-spawn-slow:replay-${uid()}`;
    await createSession({ agentId: "model-spawn-slow", key });
    const task = `tidy ${uid()}`;
    const runId = await sendMessage(key, JSON.stringify({ task, agentId: "research" }));
    const during = async () =>
      runInDurableObject(stub(key), (_instance, state) =>
        state.storage.sql.exec("SELECT name FROM tool_call WHERE run_id = ?", runId).toArray(),
      );
    // The model's next (slow) round comes after the spawn's result was recorded, and before the run ends.
    await callsArrived("model-spawn-slow", 2, task);
    expect(await during()).toEqual([{ name: "sessions_spawn" }]);
    expect(await waitRun(runId)).toMatchObject({ status: "ok" });
    expect(await during()).toEqual([]);
  });
});
