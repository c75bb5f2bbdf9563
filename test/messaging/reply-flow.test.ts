import { describe, expect, it } from "vitest";
import { withInterSessionHeader } from "../../src/messaging/inter-session";
import { type FlowStep, nextFlowStep } from "../../src/messaging/reply-flow";
import type { ReplyFlow } from "../../src/session/api";

const REQUESTER = "agent:relay:requester";
const TARGET = "agent:relay:discord:group:dev";
const CHANNEL = { [REQUESTER]: "webchat", [TARGET]: "discord" } as Record<string, string>;

function requestFlow(overrides: Partial<ReplyFlow> = {}): ReplyFlow {
  return {
    flowId: "flow-1",
    requesterKey: REQUESTER,
    targetKey: TARGET,
    originalMessage: "Is the build green?",
    maxTurns: 2,
    stepTimeoutMs: 30_000,
    hop: 1,
    stage: "request",
    turn: 0,
    ...overrides,
  };
}

const finished = (sessionKey: string, reply: string | undefined) => ({
  sessionKey,
  channel: CHANNEL[sessionKey] ?? "unknown",
  reply,
});

function turnOf(step: FlowStep) {
  if (step.kind !== "turn") throw new Error(`expected a turn, got ${step.kind}`);
  return step;
}

/**
 * Plays an exchange: the request run on the target replies first, then each step's session replies
 * with the next answer from `replies`; returns which session ran each step, and its stage and turn.
 */
function play(flow: ReplyFlow, replies: (string | undefined)[]) {
  const steps: string[] = [];
  let step = nextFlowStep(flow, finished(flow.targetKey, replies[0]));
  for (const reply of replies.slice(1)) {
    const turn = turnOf(step);
    const who = turn.sessionKey === REQUESTER ? "requester" : "target";
    steps.push(`${who}:${turn.request.flow?.stage}:${turn.request.flow?.turn}`);
    step = nextFlowStep(turn.request.flow ?? flow, finished(turn.sessionKey, reply));
  }
  return { steps, last: step };
}

describe("nextFlowStep: the reply-back loop", () => {
  it("turn 1 goes to the requester with the target's reply, header and provenance, and says who is who", () => {
    const step = turnOf(nextFlowStep(requestFlow(), finished(TARGET, "  It is green. ")));
    expect(step.sessionKey).toBe(REQUESTER);
    expect(step.request.runId).toMatch(/^[0-9a-f-]{36}$/);
    expect(step.request.message).toEqual({
      text: withInterSessionHeader("It is green.", {
        sessionKey: TARGET,
        channel: "discord",
        tool: "sessions_send",
      }),
      provenance: {
        kind: "inter_session",
        sourceSessionKey: TARGET,
        sourceChannel: "discord",
        sourceTool: "sessions_send",
        hop: 1,
      },
    });
    expect(step.request.timeoutMs).toBe(30_000);
    expect(step.request.flow).toEqual({
      ...requestFlow(),
      stage: "ping",
      turn: 1,
      round1Reply: "It is green.",
      latestReply: "It is green.",
    });
    const context = step.request.context ?? "";
    expect(context).toContain("reply step 1 of at most 2");
    expect(context).toContain(`You are Agent 1 (the requester), session ${REQUESTER}`);
    expect(context).toContain("REPLY_SKIP");
  });

  it("turn 2 goes back to the target, as Agent 2, with the requester's answer", () => {
    const first = turnOf(nextFlowStep(requestFlow(), finished(TARGET, "It is green.")));
    const second = turnOf(nextFlowStep(first.request.flow ?? requestFlow(), finished(REQUESTER, "Thanks!")));
    expect(second.sessionKey).toBe(TARGET);
    expect(second.request.message.provenance).toMatchObject({
      sourceSessionKey: REQUESTER,
      sourceChannel: "webchat",
    });
    expect(second.request.message.text.endsWith("\n\nThanks!")).toBe(true);
    expect(second.request.flow).toMatchObject({
      stage: "ping",
      turn: 2,
      round1Reply: "It is green.",
      latestReply: "Thanks!",
    });
    expect(second.request.context).toContain("reply step 2 of at most 2");
    expect(second.request.context).toContain(`You are Agent 2 (the target), session ${TARGET}`);
    expect(second.request.runId).not.toBe(first.request.runId);
  });

  it.each([
    [1, ["requester:ping:1"]],
    [2, ["requester:ping:1", "target:ping:2"]],
    [3, ["requester:ping:1", "target:ping:2", "requester:ping:3"]],
    [5, ["requester:ping:1", "target:ping:2", "requester:ping:3", "target:ping:4", "requester:ping:5"]],
  ])(
    "maxTurns %i: turns alternate starting with the requester, then the target announces",
    (maxTurns, expected) => {
      const replies = ["r0", ...expected.map((_, index) => `r${index + 1}`), "the announcement"];
      const { steps, last } = play(requestFlow({ maxTurns }), replies);
      expect(steps).toEqual([...expected, `target:announce:${maxTurns}`]);
      expect(last).toEqual({ kind: "announce", text: "the announcement" });
    },
  );

  it.each([
    ["REPLY_SKIP", "REPLY_SKIP"],
    ["padded REPLY_SKIP", " REPLY_SKIP\n"],
    ["an empty reply", ""],
    ["a blank reply", "   "],
    ["no reply at all", undefined],
  ])("%s on a turn stops the exchange: the announce step comes next", (_, stop) => {
    const { steps } = play(requestFlow({ maxTurns: 5 }), ["r0", "r1", stop, "announced"]);
    expect(steps).toEqual(["requester:ping:1", "target:ping:2", "target:announce:2"]);
  });

  it.each(["REPLY_SKIP", "", " NO_REPLY ", "HEARTBEAT_OK", "ANNOUNCE_SKIP", undefined])(
    "a first reply without visible text (%j) ends the exchange: no ping-pong, no announce (no_reply)",
    (reply) => {
      expect(nextFlowStep(requestFlow(), finished(TARGET, reply))).toEqual({ kind: "done" });
    },
  );

  it("with a sub-agent on either side (skipAnnounce), the exchange ends where the announce step would be", () => {
    const flow = requestFlow({ maxTurns: 1, skipAnnounce: true });
    expect(play(flow, ["r0", "r1"])).toEqual({ steps: ["requester:ping:1"], last: { kind: "done" } });
    expect(nextFlowStep({ ...flow, maxTurns: 0 }, finished(TARGET, "r0"))).toEqual({ kind: "done" });
  });

  it("maxTurns 0 goes straight to the announce step, which carries the request and the replies", () => {
    const step = turnOf(nextFlowStep(requestFlow({ maxTurns: 0 }), finished(TARGET, "It is green.")));
    expect(step.sessionKey).toBe(TARGET);
    expect(step.request.flow).toEqual({
      ...requestFlow({ maxTurns: 0 }),
      stage: "announce",
      round1Reply: "It is green.",
      latestReply: "It is green.",
    });
    expect(step.request.message.provenance).toEqual({
      kind: "inter_session",
      sourceSessionKey: REQUESTER,
      sourceTool: "sessions_send",
      hop: 1,
    });
    expect(step.request.message.text).toContain("Is the build green?");
    expect(step.request.message.text).toContain("It is green.");
    expect(step.request.context).toContain("ANNOUNCE_SKIP");
  });

  it("the announce step names the original request, the round-1 reply and the latest reply", () => {
    const { last, steps } = play(requestFlow({ maxTurns: 2, hop: 2 }), [
      "first answer",
      "middle",
      "latest answer",
    ]);
    expect(steps).toEqual(["requester:ping:1", "target:ping:2"]);
    const announce = turnOf(last);
    expect(announce.sessionKey).toBe(TARGET);
    expect(announce.request.flow).toMatchObject({
      stage: "announce",
      round1Reply: "first answer",
      latestReply: "latest answer",
    });
    const text = announce.request.message.text;
    expect(text.indexOf("Is the build green?")).toBeLessThan(text.indexOf("first answer"));
    expect(text.indexOf("first answer")).toBeLessThan(text.indexOf("latest answer"));
    expect(text).not.toContain("middle");
    // The hop count carries on into the announce run: a send it makes is one hop further, not hop 1.
    expect(announce.request.message.provenance?.hop).toBe(2);
  });

  it("a self-target exchange has no ping-pong: the session announces at once", () => {
    const self = requestFlow({ targetKey: REQUESTER });
    const step = turnOf(nextFlowStep(self, finished(REQUESTER, "noted")));
    expect(step.sessionKey).toBe(REQUESTER);
    expect(step.request.flow?.stage).toBe("announce");
  });
});

describe("nextFlowStep: the announce step", () => {
  const announcing = requestFlow({ stage: "announce", turn: 2, round1Reply: "a", latestReply: "b" });

  it.each([["ANNOUNCE_SKIP"], ["  ANNOUNCE_SKIP\n"], [""], [undefined]])(
    "%j → done, nothing posted",
    (reply) => {
      expect(nextFlowStep(announcing, finished(TARGET, reply))).toEqual({ kind: "done" });
    },
  );

  it("any other reply is posted, trimmed", () => {
    expect(nextFlowStep(announcing, finished(TARGET, "  Build is green.\n"))).toEqual({
      kind: "announce",
      text: "Build is green.",
    });
    expect(nextFlowStep(announcing, finished(TARGET, "REPLY_SKIP"))).toEqual({
      kind: "announce",
      text: "REPLY_SKIP",
    });
  });
});
