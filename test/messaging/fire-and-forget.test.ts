import { describe, expect, it } from "vitest";
import { queueMessageSchema } from "../../src/queue/messages";
import {
  capturingContext,
  createSession,
  createSpawned,
  deliverBatch,
  driveUntil,
  findRun,
  requesterFor,
  send,
  sendWith,
  storedRuns,
  transcript,
  uid,
  waitRun,
} from "../support";
import { sentMessage } from "./fixtures";

const ACCEPTED = {
  status: "accepted",
  targetDisposition: "queued",
  delivery: { status: "pending", mode: "announce" },
};

async function pair(prefix: string) {
  const u = uid();
  const requester = `agent:relay:${prefix}-r-${u}`;
  const target = `agent:relay:${prefix}-t-${u}`;
  await createSession({ agentId: "relay", key: requester });
  await createSpawned({ sessionKey: target, agentId: "relay", spawnedBy: requester });
  return { u, requester, target };
}

/** The target's messages that carry this send's text. */
async function copiesOf(target: string, text: string) {
  return (await transcript(target)).filter((message) => String(message.content).endsWith(`\n\n${text}`));
}

describe("sessions_send fire-and-forget (timeoutSeconds: 0)", () => {
  it("is accepted at once; the real queue's consumer delivers it and the run happens", async () => {
    const { requester, target } = await pair("ff");
    const result = await send(requester, { sessionKey: target, message: "fire one", timeoutSeconds: 0 });
    expect(result).toEqual({ runId: expect.any(String), ...ACCEPTED, sessionKey: target });
    await driveUntil([target], () => findRun(result.runId), "the queued send to arrive");
    expect(await waitRun(result.runId)).toMatchObject({ status: "ok", reply: "relay got: fire one" });
    const [request] = await copiesOf(target, "fire one");
    expect(request).toMatchObject({
      id: `in:${result.runId}`,
      role: "user",
      runId: result.runId,
      ...sentMessage(requester, "fire one"),
    });
  });

  it("puts exactly the turn on the queue; redelivering it three times adds one message and one run", async () => {
    const { requester, target } = await pair("redeliver");
    const { ctx, queued } = capturingContext(requesterFor(requester));
    const result = await sendWith(ctx, { sessionKey: target, message: "exactly once", timeoutSeconds: 0 });
    expect(result).toEqual({ runId: expect.any(String), ...ACCEPTED, sessionKey: target });
    expect(queued).toHaveLength(1);
    const [body] = queued;
    expect(queueMessageSchema.safeParse(body).success).toBe(true);
    expect(body).toMatchObject({
      type: "send",
      targetKey: target,
      turn: {
        runId: result.runId,
        message: { provenance: { kind: "inter_session", sourceSessionKey: requester, hop: 1 } },
        flow: {
          flowId: result.runId,
          requesterKey: requester,
          targetKey: target,
          originalMessage: "exactly once",
          maxTurns: 2,
          // Nothing to take the step timeout from: each reply step waits at most 60 s (SPEC §5.3).
          stepTimeoutMs: 60_000,
          hop: 1,
          stage: "request",
          turn: 0,
        },
      },
    });
    // Accepted is not delivered: until the consumer runs, the target has nothing.
    expect(await transcript(target)).toEqual([]);

    for (const attempts of [1, 2, 3]) {
      const outcome = await deliverBatch([{ id: "send-1", body, attempts }]);
      expect(outcome).toMatchObject({ explicitAcks: ["send-1"], retryMessages: [] });
    }
    // A batch holding the same message twice (a duplicate send) is also one delivery.
    expect(
      await deliverBatch([
        { id: "dup-a", body },
        { id: "dup-b", body },
      ]),
    ).toMatchObject({
      explicitAcks: ["dup-a", "dup-b"],
      retryMessages: [],
    });
    expect(await waitRun(result.runId)).toMatchObject({ status: "ok", reply: "relay got: exactly once" });
    expect(await copiesOf(target, "exactly once")).toHaveLength(1);
    const requests = (await storedRuns(target)).filter(
      (run) => JSON.parse(run.flow ?? "{}").stage === "request",
    );
    expect(requests.map((run) => run.runId)).toEqual([result.runId]);
  });

  it("idempotencyKey: the repeat has the same runId and sends nothing, even before the first landed", async () => {
    const { u, requester, target } = await pair("ffidem");
    const args = { sessionKey: target, message: "keyed", timeoutSeconds: 0, idempotencyKey: `k-${u}` };
    const { ctx, queued } = capturingContext(requesterFor(requester));
    const first = await sendWith(ctx, args);
    // The first is still on the Queue: the requester's own record answers the repeat (issue 17, item 5).
    expect(await sendWith(ctx, args)).toEqual(first);
    expect(queued).toHaveLength(1);
    for (const [index, body] of queued.entries()) await deliverBatch([{ id: `m-${index}`, body }]);
    await waitRun(first.runId);
    expect(await copiesOf(target, "keyed")).toHaveLength(1);

    // Once the first has landed, a repeat does not reach the queue either; over HTTP it answers the same.
    expect(await sendWith(ctx, args)).toEqual(first);
    expect(queued).toHaveLength(1);
    expect(await send(requester, args)).toEqual(first);
    expect(await copiesOf(target, "keyed")).toHaveLength(1);
  });

  it("the consumer dead-letters (and acks) a send whose target is gone, and a body it cannot parse", async () => {
    const { requester, target } = await pair("dead");
    const { ctx, queued } = capturingContext(requesterFor(requester));
    await sendWith(ctx, { sessionKey: target, message: "too late", timeoutSeconds: 0 });
    const [body] = queued;
    const gone = { ...(body as object), targetKey: `agent:relay:gone-${uid()}` };
    expect(
      await deliverBatch([
        { id: "gone", body: gone },
        { id: "garbage", body: { type: "send", targetKey: 42 } },
      ]),
    ).toMatchObject({ explicitAcks: ["gone", "garbage"], retryMessages: [] });
    expect(await transcript(target)).toEqual([]);
  });
});
