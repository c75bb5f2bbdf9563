import { z } from "zod";
import { runIdIn } from "../index-db/shards";
import { displayKey, isCronSessionKey, parseSessionKey } from "../keys";
import { agentToAgentContext } from "../messaging/a2a-context";
import { interSessionTurn, MAX_SEND_HOPS } from "../messaging/inter-session";
import { stableUuid } from "../messaging/stable-id";
import { resolveSendPolicy, sendPolicySubject } from "../policy/send-policy";
import { checkSessionVisible } from "../policy/visibility";
import type { ReplyFlow } from "../session/api";
import { queuedSend } from "../session/client";
import { messageTextSchema } from "../transcript/message";
import { flooredNumber, idempotencyKeyParam, labelParam, sessionKeyParam } from "./args";
import { parseSessionReference } from "./resolve-session";
import { deliveryOf, NO_ACTIVE_RUN_ERROR, waitOutcome } from "./send-results";
import { resolveSendParties } from "./send-target";
import { defineTool, type ToolContext } from "./types";

const DEFAULT_TIMEOUT_SECONDS = 30;
/** Each reply-back step waits at most this long (SPEC §5.3). */
const MAX_STEP_MS = 60_000;

/**
 * SPEC §13 watch: once the message is accepted, the requester watches the session that took it. Only
 * a send that passed `watch` reports `watched` (false for the requester's own session, and for a
 * requester that does not exist).
 */
async function watchedPart(ctx: ToolContext, watch: boolean | undefined, targetKey: string) {
  if (watch === undefined) return {};
  if (!watch || targetKey === ctx.requester.sessionKey) return { watched: false };
  const watched = await ctx.session(targetKey).watch(ctx.requester.sessionKey);
  const ok = watched.ok && watched.value.watched;
  // The watcher records it too, so its deletion drops the cursor at once (SPEC §23); if that is lost,
  // the watched session drops the cursor at the first notice the deleted watcher does not take.
  if (ok) await ctx.session(ctx.requester.sessionKey).noteWatching(targetKey);
  return { watched: ok };
}
export const sessionsSend = defineTool({
  name: "sessions_send",
  description:
    "Send a message into another session (by sessionKey, label, or agentId alone for that agent's main session). timeoutSeconds > 0 waits for its reply; 0 sends and returns at once. mode=steer puts the message into the target's active run instead of a new turn. The agents may then reply back and forth, and the target announces the outcome.",
  schema: z.object({
    sessionKey: sessionKeyParam().optional().describe("target session key, or sessionId"),
    label: labelParam().optional().describe("find the target by its label instead of sessionKey"),
    agentId: z
      .string()
      .optional()
      .describe("with label: whose labels to search; alone: that agent's main session"),
    message: messageTextSchema.describe("the message to send"),
    timeoutSeconds: flooredNumber()
      .optional()
      .describe(`seconds to wait for the reply (default ${DEFAULT_TIMEOUT_SECONDS}; 0 = don't wait)`),
    idempotencyKey: idempotencyKeyParam()
      .optional()
      .describe("a repeat with the same key returns the first result and sends nothing"),
    mode: z
      .enum(["followup", "steer"])
      .optional()
      .describe(
        "followup (default): a new turn; steer: into the target's active run, which goes on (timeoutSeconds is 0)",
      ),
    watch: z
      .boolean()
      .optional()
      .describe("true: be told (a hidden notice) when someone else later writes into the target"),
  }),
  async handler(ctx, params) {
    const { requester, config, keyOptions } = ctx;
    const fail = (status: "error" | "forbidden", error: string, sessionKey?: string) => ({
      runId: crypto.randomUUID(),
      status,
      error,
      ...(sessionKey ? { sessionKey } : {}),
    });
    if (params.sessionKey !== undefined && params.label !== undefined)
      return fail("error", "Give sessionKey or label, not both.");
    if (params.sessionKey === undefined && params.label === undefined && params.agentId === undefined)
      return fail("error", "sessionKey or label required.");
    const { target, requesterRow } = await resolveSendParties(ctx, params);
    // A refusal names the key only to a caller who gave it: found by sessionId or label, the key of a
    // session the caller may not see (a direct chat's key carries the peer's user id) stays hidden.
    const reference =
      params.sessionKey === undefined ? undefined : parseSessionReference(ctx, params.sessionKey);
    if (!target.ok) {
      const named = reference?.ok && reference.keyOnly ? displayKey(reference.key, keyOptions) : undefined;
      return fail(target.status, target.error, named);
    }
    const targetKey = target.session.sessionKey;
    const shownKey = displayKey(targetKey, keyOptions);
    const refusedKey = reference?.ok && reference.key === targetKey ? shownKey : undefined;
    const visible = checkSessionVisible(config, requester, target.session, "send");
    if (!visible.ok) return fail(visible.status, visible.error, refusedKey);
    // From here on the caller may see the target: every refusal names it.
    const parsedTarget = parseSessionKey(targetKey, keyOptions);
    if (parsedTarget?.threadScoped) {
      return fail(
        "error",
        "Target is a thread-scoped session; send to the parent channel session key instead.",
        shownKey,
      );
    }
    const policy = resolveSendPolicy(
      config.session.sendPolicy,
      sendPolicySubject(target.session, target.session.channel, keyOptions),
    );
    if (policy === "deny") return fail("error", "send blocked by session policy", shownKey);
    const steer = params.mode === "steer";
    const timeoutSeconds = steer ? 0 : Math.max(0, params.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS);
    if (timeoutSeconds > 0 && targetKey === requester.sessionKey) {
      return fail(
        "error",
        "A session cannot send to itself and wait for the reply; use timeoutSeconds: 0.",
        shownKey,
      );
    }
    const hop = (requester.hop ?? 0) + 1;
    if (hop > MAX_SEND_HOPS) {
      return fail(
        "error",
        `Agent-to-agent hop limit reached (${MAX_SEND_HOPS} chained sends); not forwarding further.`,
        shownKey,
      );
    }
    if (steer && target.missing) return fail("error", NO_ACTIVE_RUN_ERROR, shownKey);
    // No announce step ends an exchange with a sub-agent on either side (SPEC §14 `delivery`).
    const skipAnnounce = requester.isSubagent || (parsedTarget?.isSubagent ?? false);

    const requesterSession = await requesterRow();
    const requesterChannel = requesterSession?.channel ?? "unknown";
    // A requester never written has nowhere to take a notice: it does not become a watcher (OpenClaw).
    const watch = params.watch === true && requesterSession === undefined ? false : params.watch;
    const requesterShown = displayKey(requester.sessionKey, keyOptions);
    // A run's own tool call has a key of its own: resumed after an eviction, it finds its send again.
    const idempotencyKey = params.idempotencyKey ?? ctx.callKey;
    // A random one routed to the target's index shard (the run is the target's): a lookup reads one shard.
    const runId = idempotencyKey
      ? await stableUuid("sessions_send", requester.sessionKey, idempotencyKey)
      : runIdIn(ctx.shards, targetKey);
    const stepTimeoutMs = Math.min(timeoutSeconds > 0 ? timeoutSeconds * 1000 : MAX_STEP_MS, MAX_STEP_MS);
    const flow: ReplyFlow = {
      flowId: runId,
      requesterKey: requester.sessionKey,
      targetKey,
      originalMessage: params.message,
      // A cron requester gets no ping-pong (OpenClaw, SPEC §22): nobody is there to go on talking.
      maxTurns: isCronSessionKey(requester.sessionKey) ? 0 : config.session.agentToAgent.maxPingPongTurns,
      stepTimeoutMs,
      hop,
      stage: "request",
      turn: 0,
      ...(skipAnnounce ? { skipAnnounce: true as const } : {}),
    };
    const turn = interSessionTurn({
      runId,
      ...(idempotencyKey ? { dedupeKey: `send:${requester.sessionKey}:${idempotencyKey}` } : {}),
      text: params.message,
      from: { sessionKey: requester.sessionKey, channel: requesterChannel },
      header: { sessionKey: requesterShown, channel: requesterChannel, tool: "sessions_send" },
      hop,
      context: agentToAgentContext(
        { agentId: requester.agentId, sessionKey: requesterShown, channel: requesterChannel },
        { agentId: target.session.agentId, sessionKey: shownKey, channel: target.session.channel },
      ),
      flow,
    });

    if (steer) {
      const steered = await ctx.session(targetKey).steerActiveRun({ id: `steer:${runId}`, ...turn.message });
      if (!steered.ok) return fail("error", NO_ACTIVE_RUN_ERROR, shownKey);
      const watched = await watchedPart(ctx, watch, targetKey);
      return {
        runId: steered.value.runId,
        status: "accepted",
        sessionKey: shownKey,
        targetDisposition: "steered",
        // The message joins a run it did not start: no reply flow, so no announce step (SPEC §14).
        delivery: deliveryOf(true),
        ...watched,
      };
    }
    if (target.missing) {
      // SPEC §12: a configured agent's main session comes into being with the first message sent to it.
      const created = await ctx
        .session(targetKey)
        .ensure({ sessionKey: targetKey, agentId: target.session.agentId });
      if (!created.ok) return fail("error", created.message, shownKey);
    }

    // The requester records the send first, durably, in its own object: a repeat of a keyed send is
    // answered from there with the first send's runId and target (even one still on the Queue), and a
    // fire-and-forget turn is owed by its outbox until the Queue has it.
    const viaQueue = timeoutSeconds === 0;
    const recorded =
      viaQueue || idempotencyKey
        ? await ctx.recordSend({
            runId,
            targetKey,
            turn,
            ...(idempotencyKey ? { idempotencyKey: `sessions_send:${idempotencyKey}` } : {}),
            ...(viaQueue ? { viaQueue: { sourceKey: requester.sessionKey } } : {}),
          })
        : undefined;
    if (recorded && !recorded.ok) return fail("error", recorded.message, shownKey);
    const first = recorded?.value;
    const runKey = first?.targetKey ?? targetKey;
    const runShown = displayKey(runKey, keyOptions);
    if (viaQueue) {
      if (!first?.duplicate) {
        // Accepted means recorded in the requester's outbox, on every runtime. This is the fast way onto
        // the Queue; if it fails (or this Worker dies first), that outbox puts the turn there.
        const left = (cause: unknown) =>
          console.warn(`send ${runId}: left to the requester's outbox: ${String(cause)}`);
        const delivery = {
          targets: [targetKey],
          request: turn,
          viaQueue: { sourceKey: requester.sessionKey },
        };
        const queued = await ctx.sendToQueue(queuedSend(delivery)).then(() => true, left);
        if (queued) {
          // Settling only spares the outbox a second Queue send after its grace (which the target would
          // deduplicate by runId), so the answer does not wait for it where it can finish in the background.
          const settled = ctx
            .session(requester.sessionKey)
            .sendQueued(runId)
            .then(() => undefined, left);
          if (ctx.waitUntil) ctx.waitUntil(settled);
          else await settled;
        }
      }
      const watched = await watchedPart(ctx, watch, runKey);
      return {
        runId: first?.runId ?? runId,
        status: "accepted",
        sessionKey: runShown,
        targetDisposition: "queued",
        delivery: deliveryOf(skipAnnounce),
        ...watched,
      };
    }
    // Watching starts before the wait, so what others write while the requester waits notifies it; a
    // target the send itself creates (SPEC §12) is watched once it exists.
    const early = await watchedPart(ctx, watch, runKey);
    // A keyed repeat hands the first send's own turn to its own target again: the target deduplicates.
    const run = await ctx.sendTurnAndWait(runKey, first?.turn ?? turn, timeoutSeconds * 1000);
    if (!run.ok) return fail("error", `Session not found: ${runShown}.`, runShown);
    const watched = watch && !early.watched ? await watchedPart(ctx, watch, runKey) : early;
    return { ...waitOutcome(run.value, runShown, timeoutSeconds, skipAnnounce), ...watched };
  },
});
