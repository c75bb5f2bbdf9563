import { z } from "zod";
import { listChildren } from "../index-db/children";
import { controlledItems, isActive, resolveTarget, type SubagentItem } from "../subagents/targets";
import { formatRuntime, formatTokenCount } from "../text/units";
import { flooredNumber, labelParam } from "./args";
import { defineTool, type ToolContext } from "./types";

const MAX_STEER_CHARS = 4000;

function describe(item: SubagentItem): string {
  const name = item.label ?? item.task?.slice(0, 60) ?? item.sessionKey;
  const stats = [
    item.runtimeMs !== undefined ? formatRuntime(item.runtimeMs) : undefined,
    item.totalTokens !== undefined ? `${formatTokenCount(item.totalTokens)} tokens` : undefined,
  ].filter(Boolean);
  return `${item.index}. [${item.status}] ${name}${stats.length > 0 ? ` (${stats.join(", ")})` : ""} — ${item.sessionKey}`;
}

/**
 * Kills a child and, through the index, every descendant still running; returns the runs stopped. Only
 * the child reports its end: a killed descendant's completion would wake its killed parent up again.
 */
async function killTree(ctx: ToolContext, rootKey: string): Promise<number> {
  let stopped = 0;
  for (const queue = [rootKey]; queue.length > 0; ) {
    const key = queue.shift() as string;
    const killed = await ctx.session(key).kill({ cascade: key !== rootKey });
    if (killed.ok) stopped += killed.value.stopped;
    for (const child of await listChildren(ctx.db, key)) if (isActive(child)) queue.push(child.sessionKey);
  }
  return stopped;
}

export const subagents = defineTool({
  name: "subagents",
  description:
    "List, steer or kill the sub-agents you spawned. target: last, an index from list, a child key, a label (or prefix), or a runId prefix; kill accepts all.",
  schema: z.object({
    action: z.enum(["list", "steer", "kill"]).optional().describe("default list"),
    // A key or a label, so no longer than a label.
    target: labelParam().optional(),
    message: z.string().optional().describe("steer: the new instruction (at most 4000 chars)"),
    recentMinutes: flooredNumber()
      .optional()
      .describe("list: how far back finished runs show (1–1440, default 30)"),
  }),
  async handler(ctx, params) {
    const action = params.action ?? "list";
    const recentMinutes = Math.min(1440, Math.max(1, params.recentMinutes ?? 30));
    const { active, recent } = controlledItems(
      await listChildren(ctx.db, ctx.requester.sessionKey),
      recentMinutes,
      Date.now(),
    );
    const items = [...active, ...recent];
    if (action === "list") {
      const text =
        items.length > 0 ? items.map(describe).join("\n") : "No sub-agents spawned by this session.";
      return {
        status: "ok",
        action,
        requesterSessionKey: ctx.requester.sessionKey,
        total: items.length,
        active,
        recent,
        text,
      };
    }
    if (!params.target)
      return {
        status: "error",
        action,
        error: "target required (last, an index, a key, a label or a runId)",
      };
    if (action === "kill") {
      const chosen =
        params.target === "all" || params.target === "*"
          ? { ok: true as const, items: active }
          : resolveTarget(params.target, items);
      if (!chosen.ok) return { status: "error", action, error: chosen.error };
      const running = chosen.items.filter((item) => item.status === "running");
      if (running.length === 0) {
        return {
          status: "ok",
          action,
          killed: 0,
          labels: [],
          text: `${params.target}: already finished, nothing to kill.`,
        };
      }
      let killed = 0;
      for (const item of running) killed += (await killTree(ctx, item.sessionKey)) > 0 ? 1 : 0;
      const labels = running.map((item) => item.label ?? item.sessionKey);
      return { status: "ok", action, killed, labels, text: `Killed ${killed}: ${labels.join(", ")}.` };
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
    if (!steered.ok) return { status: "error", action, error: `Sub-agent ${item.sessionKey} is gone.` };
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
