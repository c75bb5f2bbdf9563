import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  ADMIN,
  callsArrived,
  createSession,
  ended,
  getRun,
  modelCalls,
  sendMessage,
  stub,
  turns,
  uid,
  waitRun,
} from "../../support";

/*
 * evictDurableObject cannot interrupt a run: workerd drains the in-flight alarm first (faults.test.ts).
 * Aborting the objects is what a crash or a code update does to a run mid-call: the instance dies with the
 * model call outstanding, and the alarm is retried on a fresh instance. This file aborts only its own objects
 * (it runs on storage of its own: FRESH_STATE in vitest.config.ts), one test at a time.
 */

const text = (label: string) => `${label} ${uid()}`;

/** The model calls model-slow-rec got for one message text. */
async function modelCallsWith(message: string) {
  return (await modelCalls("model-slow-rec")).filter((request) =>
    request.json?.messages?.some((entry) => entry.content === message),
  );
}

/**
 * Aborts the objects while the run's `attempt`-th model call is outstanding (the model got it), then fires
 * the session's alarm on a fresh instance as its time coming would: a run in flight keeps it a few seconds
 * ahead as its backstop (src/session/alarm.ts). Not awaited: the run it takes up may be interrupted next.
 */
async function abortDuringAttempt(key: string, message: string, attempt: number): Promise<void> {
  // The attempt-th call reaching the model is the attempt-th run of it in flight.
  await callsArrived("model-slow-rec", attempt, message);
  await abortAllDurableObjects();
  fireAlarm(key, message, attempt);
}

/**
 * Runs the session's alarm now. `runDurableObjectAlarm` deletes the alarm before it calls the handler, so
 * a handler that fails before the run got going (the abort still reaching the new instance, under load)
 * would leave the run with no alarm at all, where the runtime would try a failed alarm again: then the
 * alarm is set and fired again. A failure after the next attempt's model call is this test's next abort.
 */
function fireAlarm(key: string, message: string, attempt: number, tries = 1): void {
  void runDurableObjectAlarm(stub(key)).catch(async () => {
    if (tries >= 5 || (await modelCallsWith(message)).length > attempt) return;
    await runInDurableObject(stub(key), (_instance, state) => state.storage.setAlarm(Date.now())).catch(
      () => undefined,
    );
    fireAlarm(key, message, attempt, tries + 1);
  });
}

describe("a run interrupted in the middle of its model call", () => {
  it("is run again from SQLite and ends ok once: one reply, the interruption recorded", async () => {
    const key = `agent:model-slow-rec:abort-${uid()}`;
    await createSession({ agentId: "model-slow-rec", key });
    const message = text("interrupt once");
    const runId = await sendMessage(key, message);
    // A wait already pending in the instance that dies is taken up again on the next one.
    const pending = waitRun(runId);
    await abortDuringAttempt(key, message, 1);

    expect(await pending).toMatchObject({ status: "ok", reply: message });
    const run = await getRun(runId);
    expect(run).toMatchObject({
      status: "ok",
      attempts: 2,
      retries: ["interrupted by a restart; run again"],
    });
    expect(await turns(key)).toEqual([
      ["user", message],
      ["assistant", message],
    ]);
    expect(await modelCallsWith(message)).toHaveLength(2);
  });

  it("ends as error after three interrupted attempts, never stuck running, with no reply written", async () => {
    const key = `agent:model-slow-rec:abort3-${uid()}`;
    await createSession({ agentId: "model-slow-rec", key });
    const message = text("interrupt thrice");
    const runId = await sendMessage(key, message);
    for (const attempt of [1, 2, 3]) await abortDuringAttempt(key, message, attempt);

    expect(await waitRun(runId, 10_000, ADMIN, key)).toMatchObject({
      status: "error",
      runStatus: "error",
      error: "run interrupted 3 times; giving up",
    });
    expect(await getRun(runId)).toMatchObject({
      attempts: 3,
      retries: ["interrupted by a restart; run again", "interrupted by a restart; run again"],
    });
    expect(await turns(key)).toEqual([["user", message]]);
    expect(await modelCallsWith(message)).toHaveLength(3);
    // The session is free again: the next message runs normally.
    const next = text("afterwards");
    const nextRun = await sendMessage(key, next);
    expect(await waitRun(nextRun)).toMatchObject({ status: "ok", reply: next });
  });

  it("keeps the queue behind it: runs queued during the interruption run afterwards, in order", async () => {
    const key = `agent:model-slow-rec:abortq-${uid()}`;
    await createSession({ agentId: "model-slow-rec", key });
    const first = text("first");
    const second = text("second");
    const firstRun = await sendMessage(key, first);
    await callsArrived("model-slow-rec", 1, first);
    const secondRun = await sendMessage(key, second);
    await abortDuringAttempt(key, first, 1);
    expect((await waitRun(firstRun)).reply).toBe(first);
    expect((await waitRun(secondRun)).reply).toBe(second);
    const [one, two] = [ended(await getRun(firstRun)), ended(await getRun(secondRun))];
    expect(one.attempts).toBe(2);
    expect(two.attempts).toBe(1);
    expect(two.startedAt).toBeGreaterThanOrEqual(one.endedAt);
    expect(await turns(key)).toEqual([
      ["user", first],
      ["user", second],
      ["assistant", first],
      ["assistant", second],
    ]);
  }, 15_000);
});
