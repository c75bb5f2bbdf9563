import { z } from "zod";
import { subagentSettings } from "../config/agents";
import { ancestorsOf } from "../index-db/lookup";
import { stableUuid } from "../messaging/stable-id";
import { attachmentSchema, prepareAttachments } from "../subagents/attachments";
import { subagentTaskMessage } from "../subagents/task-message";
import { flooredNumber } from "./args";
import { forkTranscript } from "./fork-transcript";
import { checkSpawn } from "./spawn-checks";
import { defineTool } from "./types";

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

const NOTE =
  "The sub-agent runs in the background. Its result is pushed to this session automatically when it finishes: do not poll for it.";

export const sessionsSpawn = defineTool({
  name: "sessions_spawn",
  description:
    "Spawn a background sub-agent in its own session to do a task. Returns at once; when it finishes, its result is announced to you automatically (don't poll). Control it with subagents.",
  schema: z
    .looseObject({
      task: z.string().describe("what the sub-agent should do"),
      label: z.string().max(512).optional().describe("a short name, for subagents and listings"),
      agentId: z.string().optional().describe("the agent to spawn (see agents_list); default: your own"),
      model: z.string().optional(),
      thinking: z.string().optional(),
      runTimeoutSeconds: flooredNumber()
        .optional()
        .describe("abort the run after N seconds (0 = no timeout)"),
      timeoutSeconds: flooredNumber().optional().describe("legacy alias of runTimeoutSeconds"),
      thread: z.boolean().optional(),
      mode: z.enum(["run", "session"]).optional(),
      cleanup: z
        .enum(["delete", "keep"])
        .optional()
        .describe("delete the child session after its result is announced"),
      sandbox: z.enum(["inherit", "require"]).optional(),
      context: z.enum(["isolated", "fork"]).optional().describe("fork: start with a copy of your transcript"),
      attachments: z.array(attachmentSchema).optional(),
      attachAs: z.object({ mountPath: z.string().optional() }).optional(),
      idempotencyKey: z.string().optional().describe("a repeat with the same key returns the first spawn"),
    })
    .superRefine((params, ctx) => {
      for (const name of DELIVERY_PARAMS) {
        if (name in params) {
          ctx.addIssue({
            code: "custom",
            path: [name],
            message: "channel delivery is not a spawn option; use sessions_send",
          });
        }
      }
    }),
  async handler(ctx, params) {
    const { requester, config } = ctx;
    const plan = await checkSpawn(ctx, params);
    if (!plan.ok) return { status: plan.status, error: plan.error };
    const limits = config.tools.sessions_spawn.attachments;
    const files = await prepareAttachments(params.attachments ?? [], limits);
    if (!files.ok) return { status: "error", error: files.error };

    const childUuid = params.idempotencyKey
      ? await stableUuid("sessions_spawn", requester.sessionKey, params.idempotencyKey)
      : crypto.randomUUID();
    const childKey = `agent:${plan.target.id}:subagent:${childUuid}`;
    const runId = params.idempotencyKey
      ? await stableUuid("sessions_spawn:run", childKey)
      : crypto.randomUUID();
    const settings = subagentSettings(config, requester.agentId);
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
    const accepted = {
      status: "accepted",
      childSessionKey: childKey,
      runId,
      mode,
      note: NOTE,
      ...(plan.model ? { modelApplied: plan.model } : {}),
      ...(receipt ? { attachments: receipt } : {}),
    };

    const child = ctx.session(childKey);
    const created = await child.create({
      sessionKey: childKey,
      agentId: plan.target.id,
      spawnedBy: requester.sessionKey,
      spawnDepth: depth,
      lineage: await ancestorsOf(ctx.db, requester.sessionKey),
      ...(params.label ? { label: params.label } : {}),
      ...(plan.model ? { modelOverride: plan.model } : {}),
      ...(plan.thinking ? { thinkingLevel: plan.thinking } : {}),
      attachments: files.files,
      spawn: {
        requesterKey: requester.sessionKey,
        task: params.task,
        ...(params.label ? { label: params.label } : {}),
        mode,
        // A persistent (session-mode) child is kept for follow-ups (SPEC §5.4).
        cleanup: mode === "session" ? "keep" : (params.cleanup ?? "keep"),
        archiveAfterMinutes: subagentSettings(config, plan.target.id).archiveAfterMinutes,
      },
    });
    // A repeated idempotencyKey finds the child it created the first time: same result, nothing new.
    if (!created.ok)
      return created.code === "conflict" ? accepted : { status: "error", error: created.message };
    if (params.context === "fork") await forkTranscript(ctx, requester.sessionKey, childKey);
    const timeoutSeconds = params.runTimeoutSeconds ?? params.timeoutSeconds ?? settings.runTimeoutSeconds;
    const queued = await child.enqueueTurn({
      runId,
      message: {
        text: subagentTaskMessage(params.task, {
          depth,
          maxDepth: settings.maxSpawnDepth,
          requesterKey: requester.sessionKey,
        }),
        provenance: { kind: "subagent_task", sourceSessionKey: requester.sessionKey },
      },
      ...(timeoutSeconds > 0 ? { timeoutMs: timeoutSeconds * 1000 } : {}),
    });
    if (!queued.ok) return { status: "error", error: queued.message };
    return accepted;
  },
});
