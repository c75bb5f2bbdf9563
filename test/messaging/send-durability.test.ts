import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { addIndexSync } from "../../src/session/store/outbox-store";
import type { ToolContext } from "../../src/tools/types";
import {
  capturingContext,
  createSession,
  createSpawned,
  deliverBatch,
  driveUntil,
  requesterFor,
  send,
  sendWith,
  stub,
  toolWithConfig,
  transcript,
  uid,
  waitRun,
  workerConfig,
} from "../support";
import { rowsInEveryShard, shardOf } from "../support/shards";

/** A requester and two children it may send to (relay: visibility tree, A2A within the agent). */
async function family(prefix: string) {
  const u = uid();
  const requester = `agent:relay:${prefix}-r-${u}`;
  const first = `agent:relay:${prefix}-a-${u}`;
  const second = `agent:relay:${prefix}-b-${u}`;
  await createSession({ agentId: "relay", key: requester });
  await createSpawned({ sessionKey: first, agentId: "relay", spawnedBy: requester });
  await createSpawned({ sessionKey: second, agentId: "relay", spawnedBy: requester });
  return { u, requester, first, second };
}

/** The requester's outbox entries owed for fire-and-forget sends. */
const owedSends = (requester: string) =>
  runInDurableObject(stub(requester), (_instance, state) =>
    state.storage.sql
      .exec<{ dedupe_key: string }>("SELECT dedupe_key FROM outbox WHERE dedupe_key LIKE 'send:%'")
      .toArray(),
  );

describe("a fire-and-forget send is durable in the requester before the Queue has it (issue 17, item 13)", () => {
  it("accepted although the Queue send failed: the requester's outbox puts it on the Queue, once", async () => {
    const { requester, first } = await family("dur");
    const base = capturingContext(requesterFor(requester)).ctx;
    const ctx: ToolContext = {
      ...base,
      sendToQueue: async () => {
        throw new Error("the Worker died before the Queue answered");
      },
    };
    const result = await sendWith(ctx, { sessionKey: first, message: "survive me", timeoutSeconds: 0 });
    expect(result).toMatchObject({ status: "accepted", sessionKey: first });
    expect(await owedSends(requester)).toEqual([{ dedupe_key: `send:${result.runId}` }]);
    // Past its grace, the requester's alarm puts it on the (real) Queue, whose consumer delivers it.
    await runInDurableObject(stub(requester), (_instance, state) => {
      state.storage.sql.exec("UPDATE outbox SET next_attempt_at = 0 WHERE dedupe_key LIKE 'send:%'");
    });
    await runDurableObjectAlarm(stub(requester));
    expect(await owedSends(requester)).toEqual([]);
    const copies = async () =>
      (await transcript(first)).filter(
        (message) => message.role === "user" && String(message.content).endsWith("survive me"),
      );
    await driveUntil(
      [first],
      async () => ((await copies()).length > 0 ? true : undefined),
      "the Queue's delivery",
    );
    await waitRun(result.runId);
    expect(await copies()).toHaveLength(1);
  });

  it("when the Worker put it on the Queue itself, the requester owes nothing more", async () => {
    const { requester, first } = await family("fast");
    const { ctx, queued } = capturingContext(requesterFor(requester));
    const result = await sendWith(ctx, { sessionKey: first, message: "fast", timeoutSeconds: 0 });
    expect(queued).toMatchObject([{ type: "send", targetKey: first, turn: { runId: result.runId } }]);
    expect(await owedSends(requester)).toEqual([]);
  });
});

describe("accepting a fire-and-forget send asks little of a busy requester (issue 16)", () => {
  it("recording it leaves the requester's own due work to its alarm; over HTTP the Queue send is settled after the answer", async () => {
    const { requester, first, second } = await family("lean");
    const { ctx, queued } = capturingContext(requesterFor(requester));
    const accepted = await sendWith(ctx, { sessionKey: first, message: "lean", timeoutSeconds: 0 });
    const turn = queued[0]?.type === "send" ? queued[0].turn : undefined;
    if (!turn) throw new Error(`no turn queued: ${JSON.stringify(queued)}`);
    // Work the requester owes now (its index row), as one busy with runs of its own would: recording a
    // send is one transaction, not an outbox pass that would deliver that work first. Checked in the same
    // event as the call, so the alarm cannot deliver it in between.
    const owedAfterRecord = await runInDurableObject(stub(requester), async (instance, state) => {
      addIndexSync(state.storage.sql);
      const recorded = await instance.recordSend({
        runId: crypto.randomUUID(),
        targetKey: first,
        turn: { ...turn, runId: crypto.randomUUID() },
        viaQueue: { sourceKey: requester },
      });
      expect(recorded).toMatchObject({ ok: true, value: { duplicate: false } });
      return state.storage.sql.exec("SELECT 1 FROM outbox WHERE dedupe_key = 'index'").toArray().length;
    });
    expect(accepted).toMatchObject({ status: "accepted", sessionKey: first, targetDisposition: "queued" });
    expect(owedAfterRecord).toBe(1);
    // Over HTTP the Worker settles the requester's entry in the background (waitUntil), not before answering.
    const http = await send(requester, { sessionKey: second, message: "lean too", timeoutSeconds: 0 });
    expect(http).toMatchObject({ status: "accepted", sessionKey: second, targetDisposition: "queued" });
    const settled = async () => {
      const owed = await owedSends(requester);
      return owed.some((entry) => entry.dedupe_key === `send:${http.runId}`) ? undefined : true;
    };
    await driveUntil([], settled, "the requester's owed send to be settled");
  });
});

describe("a keyed repeat is answered from the requester's record (issue 17, item 5)", () => {
  it("a repeat, to the same or another target, while the first is still on the Queue: the first's answer, nothing sent", async () => {
    const { u, requester, first, second } = await family("key");
    const { ctx, queued } = capturingContext(requesterFor(requester));
    const key = `k-${u}`;
    const args = (sessionKey: string) => ({
      sessionKey,
      message: "once",
      timeoutSeconds: 0,
      idempotencyKey: key,
    });
    const one = await sendWith(ctx, args(first));
    expect(one).toMatchObject({ status: "accepted", sessionKey: first, targetDisposition: "queued" });
    // The window is real: the Queue consumer has not run, so neither the target nor the run index has it.
    const indexed = () =>
      shardOf(first).prepare("SELECT session_key FROM run_index WHERE run_id = ?").bind(one.runId).first();
    expect(await transcript(first)).toEqual([]);
    expect(await indexed()).toBeNull();
    expect(await sendWith(ctx, args(second))).toEqual(one);
    expect(await sendWith(ctx, args(first))).toEqual(one);
    expect(queued).toHaveLength(1);
    await deliverBatch([{ id: "only", body: queued[0] }]);
    await waitRun(one.runId);
    // Once indexed, a repeat to another target is answered the same way.
    expect(await indexed()).toEqual({ session_key: first });
    expect(await sendWith(ctx, args(second))).toEqual(one);
    expect(queued).toHaveLength(1);
    expect(await transcript(second)).toEqual([]);
  });

  it("sessions_spawn with the same key and another agentId finds the first child", async () => {
    const u = uid();
    const requester = `agent:main:spawnkey-${u}`;
    await createSession({ agentId: "main", key: requester });
    const config = workerConfig();
    const args = (agentId: string) => ({ task: "look it up", agentId, idempotencyKey: `s-${u}` });
    const one = await toolWithConfig(config, "sessions_spawn", requester, args("research"));
    const again = await toolWithConfig(config, "sessions_spawn", requester, args("ops"));
    expect(one).toMatchObject({ status: "accepted" });
    expect(again).toMatchObject({
      status: "accepted",
      childSessionKey: one.childSessionKey,
      runId: one.runId,
    });
    const results = await rowsInEveryShard<{ session_key: string }>(
      "SELECT session_key FROM session_index WHERE spawned_by = ?",
      requester,
    );
    expect(results.map((row) => row.session_key)).toEqual([one.childSessionKey]);
  });
});

describe("a large fire-and-forget turn travels by reference (issue 17, item 4)", () => {
  it("a 200 KB message is accepted, queued as a small reference and delivered whole", async () => {
    const { requester, first } = await family("big");
    const { ctx, queued } = capturingContext(requesterFor(requester));
    const message = `${"x".repeat(200 * 1024)} end`;
    const result = await sendWith(ctx, { sessionKey: first, message, timeoutSeconds: 0 });
    expect(result).toMatchObject({ status: "accepted" });
    expect(queued).toEqual([
      { type: "send_ref", targetKey: first, runId: result.runId, sourceKey: requester },
    ]);
    expect(JSON.stringify(queued[0]).length).toBeLessThan(1024);
    expect(await deliverBatch([{ id: "ref", body: queued[0] }])).toMatchObject({ explicitAcks: ["ref"] });
    await driveUntil(
      [first],
      async () => ((await transcript(first)).length > 0 ? true : undefined),
      "delivery",
    );
    const [delivered] = await transcript(first);
    expect(String(delivered?.content).endsWith(message)).toBe(true);
  });
});
