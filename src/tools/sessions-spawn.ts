import { z } from "zod";
import { subagentSettings } from "../config/agents";
import { ToolInputError } from "../errors";
import { ancestorsOf } from "../index-db/lookup";
import { findRunSession } from "../index-db/runs";
import { type IndexShards, runIdIn } from "../index-db/shards";
import { isCronSessionKey } from "../keys";
import { stableUuid } from "../messaging/stable-id";
import type { CreateSessionInit, TurnRequest } from "../session/api";
import { attachmentSchema, prepareAttachments } from "../subagents/attachments";
import { subagentTaskMessage } from "../subagents/task-message";
import { messageTextSchema } from "../transcript/message";
import { allowedWebhook, type WebhookSettings } from "../webhooks/allowed-origin";
import { flooredNumber, idempotencyKeyParam, jsonObjectParam, labelParam } from "./args";
import { readTranscript } from "./read-transcript";
import { requesterSessionId } from "./requester-session";
import { checkSpawn } from "./spawn-checks";
import { COLLECT_NOTE, checkCollect, collectorOrigin, collectorTarget } from "./spawn-collect";
import { openSpawnThread } from "./spawn-thread";
import { defineTool, type ToolContext } from "./types";

/** A refused webhook URL as the tool's input error (a 400 on /tools/invoke and REST), naming `webhook`. */
function assertWebhookParam(url: string, config: WebhookSettings): void {
  const allowed = allowedWebhook(url, config);
  if (!allowed.ok) throw new ToolInputError(`webhook: ${allowed.error}`);
}

/** Params that belong to sessions_send: a sub-agent's result comes back to its requester, never to a channel. */
const DELIVERY_PARAMS = [
  "target",
  "transport",
  "channel",
  "to",
  "threadId",
  "thread_id",
  "replyTo",
  "reply_to",
];

/** The child's key and first runId: stable for an idempotencyKey, so a repeat finds the same ones. */
async function spawnIds(requesterKey: string, idempotencyKey: string, targetId: string) {
  const childUuid = await stableUuid("sessions_spawn", requesterKey, idempotencyKey);
  const childKey = `agent:${targetId}:subagent:${childUuid}`;
  return { childUuid, childKey, runId: await stableUuid("sessions_spawn:run", childKey) };
}

/** Random ids; the run's routed to the child's index shard (`runIdIn`), so a lookup by it reads one. */
function spawnIdsAtRandom(targetId: string, shards: IndexShards) {
  const childUuid = crypto.randomUUID();
  const childKey = `agent:${targetId}:subagent:${childUuid}`;
  return { childUuid, childKey, runId: runIdIn(shards, childKey) };
}

/** A thread child's first runId: stable for an idempotencyKey, so a repeat finds its child by it. */
const threadRunId = (requesterKey: string, idempotencyKey: string) =>
  stableUuid("sessions_spawn:thread-run", requesterKey, idempotencyKey);

/** A thread child's ids: its key is its thread's; its runId stable for an idempotencyKey, else routed. */
async function threadIds(ctx: ToolContext, childKey: string, idempotencyKey: string | undefined) {
  return {
    childUuid: await stableUuid("sessions_spawn:thread", childKey),
    childKey,
    runId: idempotencyKey
      ? await threadRunId(ctx.requester.sessionKey, idempotencyKey)
      : runIdIn(ctx.shards, childKey),
  };
}

const NOTE =
  "The sub-agent runs in the background. Its result is pushed to this session automatically when it finishes: do not poll for it.";

/**
 * The accepted spawn's note. A cron run's own spawn of a run-mode child gets none (OpenClaw): a
 * scheduled run ends with its answer, so "do not poll" would tell it to end before its child's result is
 * in; it waits for it instead (`subagents` wait). A collector's note says how its result is collected.
 */
function acceptedNote(requesterKey: string, collecting: boolean, mode: string): string | undefined {
  if (collecting) return COLLECT_NOTE;
  return mode === "run" && isCronSessionKey(requesterKey) ? undefined : NOTE;
}

export const sessionsSpawn = defineTool({
  name: "sessions_spawn",
  description:
    "Spawn a background sub-agent in its own session to do a task. Returns at once; when it finishes, its result is announced to you automatically (don't poll). Control it with subagents.",
  schema: z
    .looseObject({
      task: messageTextSchema.describe("what the sub-agent should do"),
      label: labelParam().optional().describe("a short name, for subagents and listings"),
      agentId: z.string().optional().describe("the agent to spawn (see agents_list); default: your own"),
      model: z.string().optional(),
      thinking: z.string().optional(),
      runTimeoutSeconds: flooredNumber()
        .optional()
        .describe("abort the run after N seconds (0 = no timeout)"),
      timeoutSeconds: flooredNumber().optional().describe("legacy alias of runTimeoutSeconds"),
      thread: z
        .boolean()
        .optional()
        .describe(
          "open a thread for it in your chat (a Telegram forum topic, a Slack or Discord thread): its replies go there, and what people write there goes to it",
        ),
      mode: z.enum(["run", "session"]).optional(),
      cleanup: z
        .enum(["delete", "keep"])
        .optional()
        .describe("delete the child session after its result is announced"),
      sandbox: z.enum(["inherit", "require"]).optional(),
      context: z.enum(["isolated", "fork"]).optional().describe("fork: start with a copy of your transcript"),
      attachments: z.array(attachmentSchema).optional(),
      attachAs: z.object({ mountPath: z.string().optional() }).optional(),
      idempotencyKey: idempotencyKeyParam()
        .optional()
        .describe("a repeat with the same key returns the first spawn"),
      collect: z
        .boolean()
        .optional()
        .describe("a collector: nothing is announced; collect its result with agents_wait by its runId"),
      outputSchema: jsonObjectParam()
        .optional()
        .describe(
          "collect only: a JSON Schema the child's structured_output result must match, as JSON text (or the object itself)",
        ),
      groupId: z
        .string()
        .min(1)
        .max(200)
        .optional()
        .describe("collect only: the collector group (default: this run's)"),
      webhook: z
        .string()
        .max(2048)
        .optional()
        .describe(
          "POST the child's run outcome here, signed, when it ends (an origin in webhooks.allowedOrigins)",
        ),
    })
    .superRefine((params, ctx) => {
      for (const name of DELIVERY_PARAMS) {
        if (name in params) {
          ctx.addIssue({
            code: "custom",
            path: [name],
            // Worded so the error always starts with the param's name, even for `channel`.
            message:
              "not a spawn option: a sub-agent reports back to you; use sessions_send for channel delivery",
          });
        }
      }
    }),
  async handler(ctx, params) {
    const { requester, config } = ctx;
    // Refused before anything is looked up or written (SPEC §22): a 400 naming `webhook`.
    if (params.webhook !== undefined) assertWebhookParam(params.webhook, config);
    // A run's own tool call has a key of its own: resumed after an eviction, it finds its spawn again.
    const idempotencyKey = params.idempotencyKey ?? ctx.callKey;
    const origin = await collectorOrigin(ctx, params);
    if (origin) return origin;
    let repeat = false;
    // A thread's child is named by its thread, known only once it is open: a repeat finds it by its run.
    let threadChild: string | undefined;
    // A repeat of an accepted spawn (its run is in the run index, which outlives a deleted child) is
    // answered as the first time and creates nothing, even once the child is gone.
    const request = { ...params, agentId: collectorTarget(ctx, params) };
    const plan = await checkSpawn(ctx, request, async (targetId) => {
      if (!idempotencyKey) return false;
      if (params.thread) {
        threadChild = await findRunSession(
          ctx.shards,
          await threadRunId(requester.sessionKey, idempotencyKey),
        );
        repeat = threadChild !== undefined;
        return repeat;
      }
      const ids = await spawnIds(requester.sessionKey, idempotencyKey, targetId);
      repeat = (await findRunSession(ctx.shards, ids.runId)) === ids.childKey;
      return repeat;
    });
    if (!plan.ok) return { status: plan.status, error: plan.error };
    const limits = config.tools.sessions_spawn.attachments;
    const files = await prepareAttachments(params.attachments ?? [], limits);
    if (!files.ok) return { status: "error", error: files.error };
    // SPEC §15's checks come after §5.4's (the caps last, at admission).
    const collect = checkCollect(ctx, params);
    if (!collect.ok) return { status: collect.status, error: collect.error };
    const collector = collect.plan;

    // With thread: true, the thread is opened now, after every check and before the child exists.
    const opened =
      params.thread && !repeat
        ? await openSpawnThread(ctx, plan.target.id, params.label ?? params.task)
        : undefined;
    if (opened && !opened.ok) return { status: opened.status, error: opened.error };
    const thread = opened?.ok ? opened : undefined;
    const minted = !params.thread && !idempotencyKey;
    const { childUuid, childKey, runId } = params.thread
      ? await threadIds(ctx, threadChild ?? thread?.childKey ?? "", idempotencyKey)
      : idempotencyKey
        ? await spawnIds(requester.sessionKey, idempotencyKey, plan.target.id)
        : spawnIdsAtRandom(plan.target.id, ctx.shards);
    const settings = subagentSettings(config, requester.agentId);
    // The child's role and tools follow its own agent's maxSpawnDepth (src/policy/tool-profiles.ts).
    const targetSettings = subagentSettings(config, plan.target.id);
    const depth = requester.depth + 1;
    const mode = plan.mode;
    const receipt =
      files.files.length > 0
        ? {
            count: files.files.length,
            totalBytes: files.totalBytes,
            files: files.files.map((file) => ({
              name: file.name,
              bytes: file.bytes.byteLength,
              sha256: file.sha256,
            })),
            relDir: params.attachAs?.mountPath ?? `attachments/${childUuid}`,
          }
        : undefined;
    const note = acceptedNote(requester.sessionKey, collector !== undefined, mode);
    const accepted = {
      status: "accepted",
      childSessionKey: childKey,
      runId,
      mode,
      ...(note !== undefined ? { note } : {}),
      // Every run's end is announced to the requester (a silent ANNOUNCE_SKIP is the child's choice
      // later), except a collector's: its result waits to be collected.
      expectsCompletionMessage: !collector,
      ...(collector ? { collect: true, groupId: collector.groupId } : {}),
      context: params.context ?? "isolated",
      // The model the child runs with (as its listing shows it): its override, else its agent's own.
      resolvedModel: plan.model ?? plan.target.model,
      // Whether the child runs with a model override (the `model` param, or the configured sub-agent model).
      modelApplied: plan.model !== undefined,
      ...(receipt ? { attachments: receipt } : {}),
    };

    if (repeat) return accepted;
    // A collector's admission is its requester's to record (idempotent per runId), before its child exists.
    if (idempotencyKey && !collector) {
      // Recorded in the requester before the child exists: a repeat naming another agent finds this
      // spawn (its child and run), not a second child.
      const recorded = await ctx.recordSend({
        runId,
        targetKey: childKey,
        idempotencyKey: `sessions_spawn:${idempotencyKey}`,
      });
      if (!recorded.ok) return { status: "error", error: recorded.message };
      if (recorded.value.duplicate && recorded.value.targetKey !== childKey)
        return { ...accepted, childSessionKey: recorded.value.targetKey, runId: recorded.value.runId };
    }
    const timeoutSeconds = params.runTimeoutSeconds ?? params.timeoutSeconds ?? settings.runTimeoutSeconds;
    const parentSessionId = await requesterSessionId(ctx);
    const init: CreateSessionInit = {
      sessionKey: childKey,
      agentId: plan.target.id,
      spawnedBy: requester.sessionKey,
      // Bound to the requester's session from its first write (SPEC §23): the requester's key created
      // again after a deletion neither hears from it nor counts it, lists it or sees it.
      ...(parentSessionId ? { spawnedById: parentSessionId } : {}),
      spawnDepth: depth,
      // Only a sub-agent was spawned by someone: any other requester's lineage is empty, no index walk.
      lineage: requester.isSubagent ? await ancestorsOf(ctx.shards, requester.sessionKey) : [],
      ...(params.label ? { label: params.label } : {}),
      // A random key's object never held a session: no generation floor to read (SPEC §23).
      ...(minted ? { newKey: true as const } : {}),
      ...(plan.model ? { modelOverride: plan.model } : {}),
      ...(plan.thinking ? { thinkingLevel: plan.thinking } : {}),
      attachments: files.files,
      // A thread's child is of its chat, and its thread is where it answers (SPEC §21).
      ...(thread
        ? { channel: thread.thread.channel, chatType: thread.chatType, deliveryContext: thread.thread }
        : {}),
      spawn: {
        requesterKey: requester.sessionKey,
        task: params.task,
        ...(params.label ? { label: params.label } : {}),
        mode,
        // A persistent (session-mode) child is kept for follow-ups (SPEC §5.4).
        cleanup: mode === "session" ? "keep" : (params.cleanup ?? "keep"),
        archiveAfterMinutes: targetSettings.archiveAfterMinutes,
        ...(thread ? { thread: thread.thread } : {}),
        ...(collector
          ? {
              collect: {
                groupId: collector.groupId,
                runId,
                ...(collector.outputSchema ? { outputSchema: collector.outputSchema } : {}),
              },
            }
          : {}),
      },
    };
    const task: TurnRequest = {
      runId,
      message: {
        // The task alone: its depth, requester and rules are in the child's system prompt (SPEC §20).
        text: subagentTaskMessage(params.task),
        provenance: { kind: "subagent_task", sourceSessionKey: requester.sessionKey },
      },
      ...(timeoutSeconds > 0 ? { timeoutMs: timeoutSeconds * 1000 } : {}),
      // Its reply goes into its thread; a sub-agent's otherwise only reports back.
      ...(thread ? { replyTo: thread.thread } : {}),
      ...(params.webhook !== undefined ? { webhook: { url: params.webhook } } : {}),
    };
    const fork = params.context === "fork" ? await readTranscript(ctx, requester.sessionKey) : [];
    let held = false;
    if (collector) {
      // Admitted under its group's caps in the requester first. Beyond maxConcurrent, its child is
      // created now with its run held, which the requester releases once a slot is free.
      const admitted = await ctx.session(requester.sessionKey).admitCollector({
        runId,
        // Outside a run the requester may never have been written (an agent token's main session): its
        // object creates it, since the collector table that counts the group lives there.
        ...(requester.runId
          ? { requesterRunId: requester.runId }
          : { requester: { sessionKey: requester.sessionKey, agentId: requester.agentId } }),
        groupId: collector.groupId,
        childKey,
        ...(params.label ? { label: params.label } : {}),
        caps: collector.caps,
      });
      if (!admitted.ok)
        return { status: admitted.code === "forbidden" ? "forbidden" : "error", error: admitted.message };
      if (admitted.value.state === "ended") return accepted;
      held = admitted.value.state === "queued";
    }
    // The child, its forked transcript and its first run in one call and one transaction: a cut can never
    // leave a child without its run, holding a slot. A repeated idempotencyKey finds the child it created
    // the first time, and adding its run again is a no-op (same runId).
    const queued = await ctx.session(childKey).createWithTurn(init, held ? { ...task, held } : task, fork);
    if (!queued.ok) {
      // A member whose child could not be created ends failed, freeing its slot.
      if (collector)
        await ctx
          .session(requester.sessionKey)
          .collectorResult({ runId, status: "failed", result: "", error: queued.message });
      return { status: "error", error: queued.message };
    }
    // The child's creation tells the requester, with this run: one child row and its child_spawned event.
    return accepted;
  },
});
