import { z } from "zod";
import { listChildren, pendingDescendants } from "../index-db/children";
import { controlledItems, resolveTarget, type SubagentItem } from "../subagents/targets";
import { formatRuntime, formatTokenCount } from "../text/units";
import { flooredNumber, labelParam } from "./args";
import { cancelRun, killTree, MAX_WAIT_RUNS, progressOf, waitForRuns } from "./subagents-runs";
import { defineTool, type ToolContext } from "./types";

const MAX_STEER_CHARS = 4000;

function describe(item: SubagentItem): string {
  const name = item.label ?? item.task?.slice(0, 60) ?? item.sessionKey;
  const stats = [
    item.runtimeMs !== undefined ? formatRuntime(item.runtimeMs) : undefined,
    // An ended child whose runs reported no usage says so; a running one has nothing to say yet.
    item.totalTokens !== undefined
      ? `${formatTokenCount(item.totalTokens)} tokens`
      : item.status !== "running"
        ? "tokens unknown"
        : undefined,
  ].filter(Boolean);
  return `${item.index}. [${item.status}] ${name}${stats.length > 0 ? ` (${stats.join(", ")})` : ""} — ${item.sessionKey}`;
}

/** `kill` (and `cancel` by target): each chosen running child with its descendants (SPEC §5.6). */
async function killItems(
  ctx: ToolContext,
  action: "kill" | "cancel",
  target: string,
  chosen: SubagentItem[],
) {
  const running = chosen.filter((item) => item.status === "running");
  if (running.length === 0) {
    return {
      status: "ok",
      killed: 0,
      labels: [] as string[],
      text: `${target}: already finished, nothing to ${action}.`,
    };
  }
  let killed = 0;
  for (const item of running) killed += (await killTree(ctx, item.sessionKey)) > 0 ? 1 : 0;
  const labels = running.map((item) => item.label ?? item.sessionKey);
  return { status: "ok", killed, labels, text: `Killed ${killed}: ${labels.join(", ")}.` };
}

/**
 * List items with what the index alone cannot say: descendants still running (one index read) and the
 * completion's delivery (each child's object, read together).
 */
async function listedItems(ctx: ToolContext, items: SubagentItem[]) {
  const [descendants, progress] = await Promise.all([
    pendingDescendants(
      ctx.shards,
      items.map((item) => item.sessionKey),
    ),
    Promise.all(
      items.map((item) =>
        item.runId ? progressOf(ctx, item.sessionKey, item.runId, 0).catch(() => undefined) : undefined,
      ),
    ),
  ]);
  return items.map((item, i) => ({
    ...item,
    pendingDescendants: descendants.get(item.sessionKey) ?? 0,
    runtime: formatRuntime(item.runtimeMs ?? 0),
    deliveryStatus: progress[i]?.deliveryStatus ?? "not_required",
  }));
}

export const subagents = defineTool({
  name: "subagents",
  description:
    "List, wait for, cancel, steer or kill the sub-agents you spawned. target: last, an index from list, a child key, a label (or prefix), or a runId prefix; kill accepts all. wait parks until one of runIds finishes (or timeoutSeconds).",
  schema: z
    .object({
      action: z.enum(["list", "wait", "cancel", "steer", "kill"]).optional().describe("default list"),
      // A key or a label, so no longer than a label.
      target: labelParam().optional(),
      message: z.string().optional().describe("steer: the new instruction (at most 4000 chars)"),
      recentMinutes: flooredNumber()
        .optional()
        .describe("list: how far back finished runs show (1–1440, default 30)"),
      runIds: z
        .array(z.string().min(1).max(200))
        // Only a bound on the request; the limit callers read about is the one checked below.
        .max(1000, `At most ${MAX_WAIT_RUNS} runIds may be waited for`)
        .optional()
        .describe(`wait: the runs to wait for (1–${MAX_WAIT_RUNS})`),
      runId: z.string().min(1).max(200).optional().describe("cancel: the run to stop, with its descendants"),
      timeoutSeconds: flooredNumber()
        .optional()
        .describe("Wait duration in integer seconds, 0–60 (default: 30). Use 0 for a snapshot."),
    })
    // Input errors, before any storage: OpenClaw throws these (a 400 on /tools/invoke), with these words.
    .superRefine((params, ctx) => {
      if (params.action !== "wait") return;
      const count = new Set(params.runIds ?? []).size;
      if (count === 0) ctx.addIssue({ code: "custom", path: [], message: "runIds required" });
      if (count > MAX_WAIT_RUNS)
        ctx.addIssue({
          code: "custom",
          path: [],
          message: `At most ${MAX_WAIT_RUNS} runIds may be waited for`,
        });
    }),
  async handler(ctx, params) {
    const action = params.action ?? "list";
    if (action === "wait") {
      return waitForRuns(ctx, [...new Set(params.runIds ?? [])], params.timeoutSeconds);
    }
    if (action === "cancel" && params.runId) return cancelRun(ctx, params.runId);
    const recentMinutes = Math.min(1440, Math.max(1, params.recentMinutes ?? 30));
    const { active, recent } = controlledItems(
      await listChildren(ctx.shards, ctx.requester.sessionKey),
      recentMinutes,
      Date.now(),
    );
    const items = [...active, ...recent];
    if (action === "list") {
      const text =
        items.length > 0 ? items.map(describe).join("\n") : "No sub-agents spawned by this session.";
      const listed = await listedItems(ctx, items);
      return {
        status: "ok",
        action,
        requesterSessionKey: ctx.requester.sessionKey,
        callerSessionKey: ctx.requester.sessionKey,
        callerIsSubagent: ctx.requester.isSubagent,
        total: items.length,
        active: listed.slice(0, active.length),
        recent: listed.slice(active.length),
        text,
      };
    }
    if (!params.target)
      return {
        status: "error",
        action,
        error:
          action === "cancel"
            ? "runId or target required"
            : "target required (last, an index, a key, a label or a runId)",
      };
    if (action === "kill" || action === "cancel") {
      const all = params.target === "all" || params.target === "*";
      const chosen = all ? { ok: true as const, items: active } : resolveTarget(params.target, items);
      if (!chosen.ok) return { status: "error", action, error: chosen.error };
      // Collectors still queued (no child yet) never start; cancelled first, before the kills free slots.
      const queued = all ? await ctx.session(ctx.requester.sessionKey).cancelCollectors() : undefined;
      const cancelled = queued?.ok ? queued.value.cancelled.length : 0;
      const [only] = chosen.items;
      // A cancel names the run it stopped when the target is one run (as `cancel {runId}` does).
      const runId =
        action === "cancel" && chosen.items.length === 1 && only?.runId ? { runId: only.runId } : {};
      const killed = await killItems(ctx, action, params.target, chosen.items);
      if (cancelled > 0)
        Object.assign(killed, {
          killed: killed.killed + cancelled,
          text: `${killed.text} Queued collectors cancelled: ${cancelled}.`,
        });
      return { ...killed, action, ...runId };
    }
    if (!params.message) return { status: "error", action, error: "message required to steer" };
    if (params.message.length > MAX_STEER_CHARS) {
      return { status: "error", action, error: `message longer than ${MAX_STEER_CHARS} characters` };
    }
    const chosen = resolveTarget(params.target, items);
    if (!chosen.ok) return { status: "error", action, error: chosen.error };
    const [item] = chosen.items;
    if (!item) return { status: "error", action, error: `Unknown sub-agent "${params.target}".` };
    const steered = await ctx
      .session(item.sessionKey)
      .steer(ctx.requester.sessionKey, crypto.randomUUID(), params.message);
    if (!steered.ok)
      return {
        status: "error",
        action,
        error: steered.code === "forbidden" ? steered.message : `Sub-agent ${item.sessionKey} is gone.`,
      };
    if (steered.value.rateLimited) {
      return {
        status: "rate_limited",
        action,
        error: "One steer per sub-agent every 2 seconds; try again shortly.",
      };
    }
    return { status: "accepted", runId: steered.value.runId, sessionKey: item.sessionKey, mode: "restart" };
  },
});
