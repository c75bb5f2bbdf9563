import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { InboundChannelMessage } from "../../src/session/api";
import {
  driveUntil,
  inbound,
  modelRequests,
  postInbound,
  runAlarms,
  runStarted,
  session,
  storedRuns,
  stub,
  transcript,
  uid,
} from "../support";

// Busy sessions (SPEC §21): a channel's `busy` decides what a message does while its chat's session is busy.

type Mode = NonNullable<InboundChannelMessage["busy"]>["mode"];

/** A webchat message to `key` (agent `agentId`), as the inbound route hands it to the session object. */
async function accept(key: string, agentId: string, text: string, mode: Mode, debounceMs = 1500) {
  const id = uid();
  const accepted = await session(key).acceptInbound({
    init: {
      sessionKey: key,
      agentId,
      channel: "webchat",
      chatType: "direct",
      deliveryContext: { channel: "webchat", to: key.split(":").at(-1) ?? "" },
    },
    channelMessageId: id,
    text,
    senderId: "someone",
    runId: crypto.randomUUID(),
    busy: { mode, debounceMs },
  });
  if (!accepted.ok || accepted.value.status !== "accepted") throw new Error(JSON.stringify(accepted));
  return accepted.value.runId;
}

const keyFor = (agentId: string) => `agent:${agentId}:webchat:direct:busy${uid()}`;
/** The session's runs once all have ended, driving its alarm (which runs whatever is due) until then. */
const endedRuns = (key: string) =>
  driveUntil(
    [key],
    async () => {
      const runs = await storedRuns(key);
      return runs.every((run) => run.status !== "queued" && run.status !== "running") ? runs : undefined;
    },
    `the runs of ${key} to end`,
  );

describe("busy sessions", () => {
  it("queue: each message is answered by its own run, in order", async () => {
    const key = keyFor("main");
    const first = await accept(key, "main", "one", "queue");
    const second = await accept(key, "main", "two", "queue");
    const runs = await endedRuns(key);
    expect(runs.map((run) => [run.runId, run.status, run.reply])).toEqual([
      [first, "ok", "Got it: one"],
      [second, "ok", "Got it: two"],
    ]);
  });

  it("steer: a message reaches the run in flight, which answers it; none runs of its own", async () => {
    const key = keyFor("steerable");
    const first = await accept(key, "steerable", "wait for steering", "steer");
    const alarm = runAlarms([key]);
    await runStarted(first);
    expect(await accept(key, "steerable", "change of plan", "steer")).toBe(first);
    await alarm;
    const runs = await endedRuns(key);
    expect(runs.map((run) => [run.runId, run.status, run.reply])).toEqual([
      [first, "ok", "steered: change of plan"],
    ]);
  });

  it("steer: with no run in flight, the message is queued", async () => {
    const key = keyFor("main");
    const first = await accept(key, "main", "alone", "steer");
    expect((await endedRuns(key)).map((run) => [run.runId, run.reply])).toEqual([[first, "Got it: alone"]]);
  });

  it("interrupt: the run in flight is killed without a reply, one new run answers", async () => {
    const key = keyFor("steerable");
    const first = await accept(key, "steerable", "wait for steering", "interrupt");
    const alarm = runAlarms([key]);
    await runStarted(first);
    const second = await accept(key, "steerable", "never mind", "interrupt");
    await alarm;
    const runs = await endedRuns(key);
    expect(runs.map((run) => [run.runId, run.status, run.reply ?? null, run.error ?? null])).toEqual([
      [first, "killed", null, "run interrupted by a newer message"],
      [second, "ok", "steerable got: never mind", null],
    ]);
    // The killed run's partial work is dropped; its message stays, before the one that answers both.
    const texts = (await transcript(key)).map((message) => [message.role, message.content]);
    expect(texts).toEqual([
      ["user", "wait for steering"],
      ["user", "never mind"],
      ["assistant", [{ type: "text", text: "steerable got: never mind" }]],
    ]);
  });

  it("collect: messages within the debounce are answered together by one run, once it has passed", async () => {
    const key = keyFor("main");
    const first = await accept(key, "main", "one", "collect");
    expect(await accept(key, "main", "two", "collect")).toBe(first);
    expect(await accept(key, "main", "three", "collect")).toBe(first);
    // Before the debounce has passed since the latest message, the alarm starts nothing.
    await runAlarms([key], 2);
    const waiting = await storedRuns(key);
    expect(waiting.map((run) => run.status)).toEqual(["queued"]);
    const notBefore = await runInDurableObject(stub(key), (_instance, state) => {
      const row = state.storage.sql.exec<{ not_before: number }>("SELECT not_before FROM run").one();
      // The debounce has passed: the run's start, moved by each message, is now.
      state.storage.sql.exec("UPDATE run SET not_before = ?", Date.now());
      return row.not_before;
    });
    expect(notBefore).toBeGreaterThan(Date.now());
    const runs = await endedRuns(key);
    // One run, triggered by the latest message: the two before it are its history.
    expect(runs.map((run) => [run.runId, run.status, run.reply])).toEqual([[first, "ok", "Got it: three"]]);
    const messages = await transcript(key);
    expect(messages.map((message) => [message.role, message.content])).toEqual([
      ["user", "one"],
      ["user", "two"],
      ["user", "three"],
      ["assistant", [{ type: "text", text: "Got it: three" }]],
    ]);
    expect(runs[0]?.triggerMessageId).toBe(messages[2]?.id);
  });

  it("collect, through the channel's route: the run's model sees every collected message", async () => {
    const marker = uid();
    const answers = [];
    for (const text of [`first ${marker}`, `second ${marker}`, `third ${marker}`]) {
      const posted = await postInbound(
        "webchat-collect",
        inbound({ senderId: `busy${marker}`, chatId: `busy${marker}`, text, messageId: uid() }),
      );
      expect(posted.status).toBe(202);
      answers.push(posted.json);
    }
    const [first] = answers;
    if (first?.status !== "accepted") throw new Error(JSON.stringify(first));
    expect(answers.map((answer) => answer.status === "accepted" && answer.runId)).toEqual([
      first.runId,
      first.runId,
      first.runId,
    ]);
    const key = first.sessionKey;
    await runInDurableObject(stub(key), (_instance, state) => {
      state.storage.sql.exec("UPDATE run SET not_before = ?", Date.now());
    });
    await runAlarms([key]);
    const runs = await endedRuns(key);
    expect(runs.map((run) => [run.runId, run.status, run.reply])).toEqual([
      [first.runId, "ok", `third ${marker}`],
    ]);
    const [request] = await modelRequests("platform-echo-rec", marker);
    const said = JSON.stringify(request?.messages);
    for (const text of [`first ${marker}`, `second ${marker}`, `third ${marker}`])
      expect(said).toContain(text);
    expect(await modelRequests("platform-echo-rec", marker)).toHaveLength(1);
  });
});
