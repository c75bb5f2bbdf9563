import { z } from "zod";
import { budgetCardLine, hasDailyCap } from "../agent-object/budget";
import { utcDay } from "../agent-object/spend";
import { contextWindowOf, findAgent, unknownModelError } from "../config/agents";
import { ToolInputError } from "../errors";
import { countChildrenByStatus } from "../index-db/lookup";
import { displayKey } from "../keys";
import { checkSessionVisible } from "../policy/visibility";
import type { Result, SessionRow, Viewer } from "../session/api";
import { sessionKeyParam } from "./args";
import {
  failureOf,
  implicitSession,
  parseSessionReference,
  referenceNotFound,
  resolveSessionReference,
  viewerOf,
} from "./resolve-session";
import { statusCard } from "./status-card";
import { defineTool, type ToolContext, type ToolFailure } from "./types";

/** What changed since a version (SPEC §13), and the card's line about it; `since` beyond the head is bad input. */
async function changesPart(ctx: ToolContext, sessionKey: string, version: number, since: number) {
  if (since > version)
    throw new ToolInputError(`changesSince: ${since} is beyond the session's stateVersion (${version})`);
  // Asked by a session, this also acknowledges that session's watch notice about the target (SPEC §13).
  const changes = await ctx.session(sessionKey).changes(since, ctx.requester.sessionKey);
  if (!changes.ok) return undefined;
  const { stateVersion, ...stateChanges } = changes.value;
  return {
    stateVersion,
    stateChanges,
    line: `State: v${stateVersion}, ${stateVersion - since} changes since v${since}`,
  };
}

/** SPEC §12: the card of the requester's own (or its agent's main) session, never written yet. */
function noActivityCard(ctx: ToolContext, sessionKey: string, changesSince: number | undefined) {
  if (changesSince !== undefined && changesSince > 0)
    throw new ToolInputError(`changesSince: ${changesSince} is beyond the session's stateVersion (0)`);
  const { agentId } = ctx.requester;
  const key = displayKey(sessionKey, ctx.keyOptions);
  const model = findAgent(ctx.config, agentId)?.model;
  return {
    ok: true,
    sessionKey: key,
    agentId,
    changedModel: false,
    stateVersion: 0,
    statusText: statusCard(
      { key, model, contextTokens: contextWindowOf(ctx.config, agentId) },
      { children: {}, now: Date.now() },
    ),
    ...(changesSince === undefined
      ? {}
      : {
          stateChanges: { events: [], truncated: false, earliestAvailableSequence: 1, historyGap: false },
        }),
  };
}

/**
 * The session's row (its model set first if asked) and its children's counts by status. A read asks
 * the index only for a session that may have children (most never spawn); a model change is written
 * while the index counts.
 */
async function describedWithChildren(
  ctx: ToolContext,
  sessionKey: string,
  model: string | undefined,
  viewer: Viewer | undefined,
): Promise<{ described: Result<SessionRow>; children: Record<string, number>; modelOverride?: string }> {
  const stub = ctx.session(sessionKey);
  if (model !== undefined) {
    const [described, children] = await Promise.all([
      stub.patch({ modelOverride: model === "default" ? null : model }),
      countChildrenByStatus(ctx.shards, sessionKey),
    ]);
    return { described, children, ...(model !== "default" ? { modelOverride: model } : {}) };
  }
  const status = await stub.describeForStatus(viewer);
  if (!status.ok) return { described: status, children: {} };
  const { row, mayHaveChildren, modelOverride } = status.value;
  const children = mayHaveChildren ? await countChildrenByStatus(ctx.shards, sessionKey, row.sessionId) : {};
  return { described: { ok: true, value: row }, children, ...(modelOverride ? { modelOverride } : {}) };
}

/**
 * What the card says of its model (the one that answered the last run, SPEC §20): a session override, a
 * fallback (it is not the model the session asks for), or nothing.
 */
function modelNote(shown: string | undefined, override: string | undefined, agentModel: string | undefined) {
  if (shown === undefined) return undefined;
  if (shown !== (override ?? agentModel)) return "fallback";
  return override !== undefined ? "session override" : undefined;
}

/** The card's budget line: the agent's day so far against its daily caps, asked only when it has one. */
async function budgetLine(ctx: ToolContext, agentId: string, now: number): Promise<string | undefined> {
  const budget = findAgent(ctx.config, agentId)?.budget;
  if (!hasDailyCap(budget)) return undefined;
  return budgetCardLine(budget, await ctx.agentSpend(agentId, utcDay(now)));
}

/**
 * The status card of `sessionKey`, its model set first if asked. With a viewer, the object checks
 * visibility (reads only).
 * `missing` answers a session that has no record and is not one a reader may see unwritten (SPEC §12).
 */
async function statusOf(
  ctx: ToolContext,
  sessionKey: string,
  params: { model?: string; changesSince?: number },
  answers: { viewer?: Viewer; missing: ToolFailure },
): Promise<Record<string, unknown>> {
  const { described, children, modelOverride } = await describedWithChildren(
    ctx,
    sessionKey,
    params.model,
    answers.viewer,
  );
  if (!described.ok) {
    if (described.code === "forbidden") return { status: "forbidden", error: described.message };
    const implicit = implicitSession(ctx, sessionKey);
    if (!implicit) return { ...answers.missing };
    if (answers.viewer) {
      const visible = checkSessionVisible(ctx.config, ctx.requester, implicit, "status");
      if (!visible.ok) return { status: visible.status, error: visible.error };
    }
    // Reads are pure, and a model is a setting of a session that exists: this one is not created.
    if (params.model !== undefined) {
      const shown = displayKey(sessionKey, ctx.keyOptions);
      return { status: "error", error: `Session ${shown} has no activity yet; set its model once it has.` };
    }
    return noActivityCard(ctx, sessionKey, params.changesSince);
  }
  const row = described.value;
  const agentModel = findAgent(ctx.config, row.agentId)?.model;
  const stateVersion = row.stateVersion ?? 0;
  const changes =
    params.changesSince === undefined
      ? undefined
      : await changesPart(ctx, sessionKey, stateVersion, params.changesSince);
  const now = Date.now();
  const budget = await budgetLine(ctx, row.agentId, now);
  const card = statusCard(row, {
    modelNote: modelNote(row.model, modelOverride, agentModel),
    children,
    now,
    ...(budget ? { budget } : {}),
  });
  return {
    ok: true,
    sessionKey: row.key,
    agentId: row.agentId,
    changedModel: params.model !== undefined,
    stateVersion: changes?.stateVersion ?? stateVersion,
    statusText: changes ? `${card}\n${changes.line}` : card,
    ...(row.estimatedCostUsd !== undefined ? { estimatedCostUsd: row.estimatedCostUsd } : {}),
    ...(changes ? { stateChanges: changes.stateChanges } : {}),
  };
}

export const sessionStatus = defineTool({
  name: "session_status",
  description:
    "Show a session's status card (model, tokens, activity, sub-agents); optionally set its model override ('default' clears it).",
  schema: z.object({
    sessionKey: sessionKeyParam().optional().describe("default: your own session"),
    model: z.string().optional().describe("a configured model, or 'default' to clear the override"),
    changesSince: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe("a stateVersion you saw: also answer the session's events after it (stateChanges)"),
  }),
  // As OpenClaw answers it: the card itself is the text; an error result stays JSON.
  resultText: (details) =>
    "statusText" in details && typeof details.statusText === "string" ? details.statusText : undefined,
  async handler(ctx, params) {
    // With no sessionKey the target is the caller's own session, which always exists (SPEC §12): so
    // a "not found" below names what the caller sent, or the resolved key, never a default.
    const input = params.sessionKey ?? "current";
    const reference = parseSessionReference(ctx, input);
    if (!reference.ok) return { status: reference.status, error: reference.error };
    // A read of a reference only one key can match: the object checks visibility against its own record,
    // so no index lookup comes first (as sessions_history).
    if (reference.keyOnly && params.model === undefined) {
      const missing = failureOf(referenceNotFound(input));
      return statusOf(ctx, reference.key, params, { viewer: viewerOf(ctx), missing });
    }
    const lookup = await resolveSessionReference(ctx, input);
    const target = lookup.ok ? lookup.session : implicitSession(ctx, reference.key);
    if (!lookup.ok && !target) return { status: lookup.status, error: lookup.error };
    if (target) {
      const visible = checkSessionVisible(ctx.config, ctx.requester, target, "status");
      if (!visible.ok) return { status: visible.status, error: visible.error };
    }
    const badModel =
      params.model === undefined || params.model === "default"
        ? undefined
        : unknownModelError(ctx.config, params.model);
    if (badModel) return { status: "error", error: badModel };
    const sessionKey = target?.sessionKey ?? reference.key;
    const missing: ToolFailure = {
      status: "error",
      error: `Session not found: ${displayKey(sessionKey, ctx.keyOptions)}.`,
    };
    return statusOf(ctx, sessionKey, params, { missing });
  },
});
