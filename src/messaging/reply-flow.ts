import type { ReplyFlow, TurnRequest } from "../session/api";
import { ANNOUNCE_SKIP, interSessionTurn, isNonDeliverableReply, isSkip, REPLY_SKIP } from "./inter-session";

/** What a finished run of an agent-to-agent exchange leads to (SPEC §5.3 reply-back loop and announce). */
export type FlowStep =
  | { kind: "turn"; sessionKey: string; request: TurnRequest }
  | { kind: "announce"; text: string }
  | { kind: "done" };

interface Finished {
  sessionKey: string;
  channel: string;
  reply: string | undefined;
}

function pingContext(flow: ReplyFlow, turn: number, you: string, other: string): string {
  const role = you === flow.requesterKey ? "Agent 1 (the requester)" : "Agent 2 (the target)";
  return [
    `Agent-to-agent reply step ${turn} of at most ${flow.maxTurns}.`,
    `You are ${role}, session ${you}. The other agent is session ${other}; its latest reply is the message below.`,
    `Answer it to continue the exchange, or reply exactly ${REPLY_SKIP} to stop.`,
  ].join("\n");
}

const ANNOUNCE_CONTEXT = [
  "Agent-to-agent announce step: the exchange with another agent has finished.",
  `Reply exactly ${ANNOUNCE_SKIP} to stay silent; any other reply is posted to this session's channel.`,
].join("\n");

function announceMessage(flow: ReplyFlow): string {
  return [
    `Original request (from ${flow.requesterKey}):`,
    flow.originalMessage,
    "",
    "First reply:",
    flow.round1Reply ?? "(none)",
    "",
    "Latest reply:",
    flow.latestReply ?? flow.round1Reply ?? "(none)",
  ].join("\n");
}

function announceStep(flow: ReplyFlow): FlowStep {
  if (flow.skipAnnounce) return { kind: "done" };
  const next: ReplyFlow = { ...flow, stage: "announce" };
  return {
    kind: "turn",
    sessionKey: flow.targetKey,
    request: interSessionTurn({
      runId: crypto.randomUUID(),
      text: announceMessage(next),
      from: { sessionKey: flow.requesterKey },
      // Sends made by the announce run count from here too, or a loop could restart its hop count.
      hop: flow.hop,
      context: ANNOUNCE_CONTEXT,
      timeoutMs: flow.stepTimeoutMs,
      flow: next,
    }),
  };
}

function pingStep(flow: ReplyFlow, turn: number, from: Finished, reply: string): FlowStep {
  const to = from.sessionKey === flow.requesterKey ? flow.targetKey : flow.requesterKey;
  const next: ReplyFlow = { ...flow, stage: "ping", turn, latestReply: reply };
  return {
    kind: "turn",
    sessionKey: to,
    request: interSessionTurn({
      runId: crypto.randomUUID(),
      text: reply,
      from: { sessionKey: from.sessionKey, channel: from.channel },
      header: { sessionKey: from.sessionKey, channel: from.channel, tool: "sessions_send" },
      hop: flow.hop,
      context: pingContext(next, turn, to, from.sessionKey),
      timeoutMs: flow.stepTimeoutMs,
      flow: next,
    }),
  };
}

/**
 * The step after a run of the exchange ended `ok`: turns alternate starting with the requester, up to
 * `maxTurns`; an empty reply or REPLY_SKIP stops them; then the target runs the announce step, whose
 * reply (unless ANNOUNCE_SKIP) is posted to the target's channel. A request answered without visible
 * text (`no_reply`, SPEC §14) ends the exchange there: no reply-back, no announce.
 */
export function nextFlowStep(flow: ReplyFlow, finished: Finished): FlowStep {
  const reply = finished.reply?.trim() ?? "";
  if (flow.stage === "announce")
    return isSkip(reply, ANNOUNCE_SKIP) ? { kind: "done" } : { kind: "announce", text: reply };
  if (flow.stage === "request") {
    if (isNonDeliverableReply(reply)) return { kind: "done" };
    const withReply: ReplyFlow = { ...flow, ...(reply ? { round1Reply: reply, latestReply: reply } : {}) };
    const pingPong = flow.maxTurns > 0 && flow.requesterKey !== flow.targetKey && !isSkip(reply, REPLY_SKIP);
    return pingPong ? pingStep(withReply, 1, finished, reply) : announceStep(withReply);
  }
  if (isSkip(reply, REPLY_SKIP)) return announceStep(flow);
  const latest: ReplyFlow = { ...flow, latestReply: reply };
  return flow.turn >= flow.maxTurns ? announceStep(latest) : pingStep(latest, flow.turn + 1, finished, reply);
}
