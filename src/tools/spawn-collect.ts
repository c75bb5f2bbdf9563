import { swarmSettings } from "../config/agents";
import { isCollectorSession } from "../index-db/lookup";
import type { CollectorCaps } from "../session/api";
import { outputSchemaError } from "../subagents/output-schema";
import type { ToolContext, ToolFailure } from "./types";

/** The accepted result's note for a collector (OpenClaw's words, SPEC §15). */
export const COLLECT_NOTE =
  "Collector run: no completion notification is sent. The requester must explicitly collect this run's result with the available collector wait capability, using its run id.";

export interface CollectParams {
  collect?: boolean;
  outputSchema?: Record<string, unknown>;
  groupId?: string;
  thread?: boolean;
  mode?: "run" | "session";
  agentId?: string;
}

/** A collector spawn as checked: its group, its schema and the caps its requester admits it under. */
export interface CollectPlan {
  groupId: string;
  outputSchema?: Record<string, unknown>;
  caps: CollectorCaps;
}

const failure = (status: ToolFailure["status"], error: string): ToolFailure => ({ status, error });

/**
 * OpenClaw's tool-level check, before any other: a collector's own spawns must be collectors too, so
 * that nothing they do waits on an interactive approval.
 */
export async function collectorOrigin(
  ctx: ToolContext,
  params: CollectParams,
): Promise<ToolFailure | undefined> {
  if (params.collect || !ctx.requester.isSubagent) return undefined;
  // A run's token says whether it is a collector's (set from the child's own record); the index, which
  // may lag behind a just-created child, only answers for a call outside a run.
  const collector = ctx.requester.runId
    ? ctx.requester.collector === true
    : await isCollectorSession(ctx.shards, ctx.requester.sessionKey);
  if (!collector) return undefined;
  return failure(
    "error",
    "sessions_spawn from a collector requires collect=true so approvals stay non-interactive.",
  );
}

/** The agent a collector spawns when none is named: `tools.swarm.defaultAgentId`, else the requester's. */
export function collectorTarget(ctx: ToolContext, params: CollectParams): string | undefined {
  if (!params.collect || params.agentId !== undefined) return params.agentId;
  return swarmSettings(ctx.config, ctx.requester.agentId).defaultAgentId || undefined;
}

/**
 * SPEC §15's checks after §5.4's, in order (the caps are the requester's to check, at admission).
 * `plan` is undefined for an ordinary spawn.
 */
export function checkCollect(
  ctx: ToolContext,
  params: CollectParams,
): { ok: true; plan?: CollectPlan } | ({ ok: false } & ToolFailure) {
  const refuse = (status: ToolFailure["status"], error: string) => ({
    ok: false as const,
    ...failure(status, error),
  });
  const { collect, outputSchema, groupId } = params;
  if (collect && (params.thread || params.mode === "session"))
    return refuse("error", "sessions_spawn collect=true requires mode=run and thread=false.");
  const settings = swarmSettings(ctx.config, ctx.requester.agentId);
  const swarmParams = collect !== undefined || outputSchema !== undefined || groupId !== undefined;
  if (swarmParams && !settings.enabled)
    return refuse("forbidden", "sessions_spawn swarm parameters require tools.swarm.enabled=true.");
  if (outputSchema !== undefined && !collect)
    return refuse("error", "sessions_spawn outputSchema requires collect=true.");
  if (groupId !== undefined && !collect)
    return refuse("error", "sessions_spawn groupId requires collect=true.");
  if (!collect) return { ok: true };
  const invalid = outputSchema === undefined ? undefined : outputSchemaError(outputSchema);
  if (invalid) return refuse("error", `Invalid sessions_spawn outputSchema: ${invalid}`);
  const { sessionKey, runId } = ctx.requester;
  if (groupId === undefined && !runId)
    return refuse(
      "error",
      "sessions_spawn collect=true requires a requesting run id when groupId is omitted.",
    );
  return {
    ok: true,
    plan: {
      groupId: groupId ?? `swarm:${sessionKey}:${runId}`,
      ...(outputSchema !== undefined ? { outputSchema } : {}),
      caps: {
        maxConcurrent: settings.maxConcurrent,
        maxChildrenPerGroup: settings.maxChildrenPerGroup,
        maxTotalPerGroup: settings.maxTotalPerGroup,
      },
    },
  };
}
