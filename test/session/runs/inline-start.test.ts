import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { SessionObject } from "../../../src/session/session-object";
import { createSession, getRun, stub, uid } from "../../support";

describe("a turn waited for starts its run at once", () => {
  it("runs in the call that queued it, with the alarm held off, and is in the run index when answered", async () => {
    const key = `agent:relay:inline-${uid()}`;
    await createSession({ agentId: "relay", key });
    const runId = crypto.randomUUID();
    // blockConcurrencyWhile keeps every other event out, the alarm's included: a run that waited for
    // the alarm to start it would still be queued when the wait ran out.
    const { answer, alarmAt, before } = await runInDurableObject(
      stub(key),
      (instance: SessionObject, state) =>
        state.blockConcurrencyWhile(async () => {
          const before = Date.now();
          const answer = await instance.enqueueTurnAndWait(
            { runId, message: { text: "hello", provenance: { kind: "external_user" } } },
            5000,
          );
          return { answer, alarmAt: await state.storage.getAlarm(), before };
        }),
    );
    expect(answer).toMatchObject({ ok: true, value: { runId, status: "ok", reply: "relay got: hello" } });
    // Nothing is left due now: no alarm fires for work already done (at most a later one is set).
    expect(alarmAt === null || alarmAt > before).toBe(true);
    expect(await getRun(runId)).toMatchObject({ runId, sessionKey: key, status: "ok" });
  });
});
