import { z } from "zod";
import { unknownModelError } from "../config/agents";
import { displayKey } from "../keys";
import { MAX_LABEL_CHARS, MAX_MODEL_CHARS } from "../limits";
import { checkSessionVisible } from "../policy/visibility";
import type { Result, SessionPatch } from "../session/api";
import { labelParam, sessionKeyParam } from "./args";
import { parseSessionReference, resolveSessionReference } from "./resolve-session";
import { THINKING_LEVELS } from "./spawn-checks";
import { defineTool, type ToolContext } from "./types";

/** The patch fields, in the order `updated` lists them. */
const PATCH_FIELDS = ["label", "displayName", "archived", "pinned", "model", "thinkingLevel"] as const;

const IDENTITY_REQUIRED = "Session lifecycle action requires a durable session identity";
const SCHEDULED_MESSAGE = "Session will be archived after the current agent run finishes.";

const changedBeforePatch = (sessionKey: string) => `Session ${sessionKey} changed before patch. Retry.`;

type Params = {
  label?: string | null | undefined;
  displayName?: string | null | undefined;
  archived?: boolean | undefined;
  pinned?: boolean | undefined;
  model?: string | undefined;
  thinkingLevel?: string | null | undefined;
};

/** The session patch of the params; archiving the caller's own session mid-run waits for the run's end. */
function patchOf(params: Params, selfInRun: boolean): SessionPatch {
  return {
    ...(params.label !== undefined ? { label: params.label } : {}),
    ...(params.displayName !== undefined ? { displayName: params.displayName } : {}),
    ...(params.archived !== undefined
      ? { archived: params.archived && selfInRun ? ("after_run" as const) : params.archived }
      : {}),
    ...(params.pinned !== undefined ? { pinned: params.pinned } : {}),
    ...(params.model !== undefined
      ? { modelOverride: params.model === "default" ? null : params.model }
      : {}),
    ...(params.thinkingLevel !== undefined ? { thinkingLevel: params.thinkingLevel } : {}),
  };
}

/** A failed patch or delete as a result: a guard conflict says the key now names a newer session. */
function failureOf(result: Result<unknown> & { ok: false }, key: string) {
  return result.code === "conflict"
    ? { status: "error" as const, error: changedBeforePatch(key) }
    : { status: "error" as const, error: `Session not found: ${key}.` };
}

/** A model or thinking level the session cannot be given, as a result (spawn's words for both). */
function badSetting(ctx: ToolContext, params: Params) {
  const { model, thinkingLevel } = params;
  const badModel =
    model === undefined || model === "default" ? undefined : unknownModelError(ctx.config, model);
  if (badModel) return { status: "error" as const, error: badModel };
  if (typeof thinkingLevel === "string" && !(THINKING_LEVELS as readonly string[]).includes(thinkingLevel)) {
    const error = `Invalid thinking "${thinkingLevel}"; use one of ${THINKING_LEVELS.join(", ")}.`;
    return { status: "error" as const, error };
  }
  return undefined;
}

export const sessions = defineTool({
  name: "sessions",
  description:
    "Manage a session you can see: patch its label, displayName, archived, pinned, model or thinkingLevel, or delete it. Archiving or deleting another session needs its sessionId (from sessions_list) as expectedSessionId.",
  // Strict: a field the tool does not set (sendPolicy stays operator-only) is an input error, not ignored.
  schema: z
    .strictObject({
      action: z.enum(["patch", "delete"]),
      sessionKey: sessionKeyParam().optional().describe("default: your own session"),
      // A sessionId is a UUID; the bound only keeps a wrong value small.
      expectedSessionId: z
        .string()
        .max(64)
        .optional()
        .describe("the sessionId from sessions_list: the change applies only to that session"),
      label: labelParam().nullable().optional().describe("null clears it"),
      displayName: z.string().max(MAX_LABEL_CHARS).nullable().optional().describe("null clears it"),
      archived: z.boolean().optional().describe("true hides it from default listings; false restores it"),
      pinned: z.boolean().optional(),
      model: z.string().max(MAX_MODEL_CHARS).optional().describe("a configured model, or 'default' to clear"),
      thinkingLevel: z.string().max(32).nullable().optional().describe("null clears it"),
    })
    // An input error, before any storage: OpenClaw throws it (a 400 on /tools/invoke), in these words.
    .superRefine((params, ctx) => {
      if (params.action === "patch" && !PATCH_FIELDS.some((field) => params[field] !== undefined))
        ctx.addIssue({ code: "custom", path: [], message: "Patch setting required" });
    })
    // The generated example (OpenAPI, docs) must pass that check too: a patch with a field.
    .meta({ examples: [{ action: "patch", sessionKey: "main", label: "triage" }] }),
  async handler(ctx, params) {
    // Default: the caller's own key, so that a failure names it rather than an input never sent.
    const input = params.sessionKey ?? ctx.requester.sessionKey;
    const fields = PATCH_FIELDS.filter((field) => params[field] !== undefined);
    const reference = parseSessionReference(ctx, input);
    if (!reference.ok) return { status: reference.status, error: reference.error };
    const ownKey = ctx.requester.sessionKey;
    const lifecycle = params.action === "delete" || params.archived !== undefined;
    const namedOwn = reference.keyOnly && reference.key === ownKey;
    if (params.action === "delete" && namedOwn)
      return { status: "error", error: "Cannot delete the session running this tool" };
    if (lifecycle && !namedOwn && params.expectedSessionId === undefined)
      return { status: "error", error: IDENTITY_REQUIRED };
    const bad = badSetting(ctx, params);
    if (bad) return bad;

    const lookup = await resolveSessionReference(ctx, input);
    if (!lookup.ok) return { status: lookup.status, error: lookup.error };
    const target = lookup.session;
    const own = target.sessionKey === ownKey;
    if (params.action === "delete" && own)
      return { status: "error", error: "Cannot delete the session running this tool" };
    const visible = checkSessionVisible(ctx.config, ctx.requester, target, "status");
    if (!visible.ok) return { status: visible.status, error: visible.error };
    const key = displayKey(target.sessionKey, ctx.keyOptions);
    const guard = { expectedSessionId: params.expectedSessionId ?? target.sessionId };
    if (guard.expectedSessionId !== target.sessionId)
      return { status: "error", error: changedBeforePatch(key) };

    const stub = ctx.session(target.sessionKey);
    if (params.action === "delete") {
      const removed = await stub.remove(guard);
      return removed.ok ? { status: "deleted", sessionKey: key } : failureOf(removed, key);
    }
    const selfInRun = own && ctx.requester.runId !== undefined;
    const patched = await stub.patch(patchOf(params, selfInRun), guard);
    if (!patched.ok) return failureOf(patched, key);
    if (params.archived && selfInRun && !patched.value.archived)
      return { status: "scheduled", sessionKey: key, message: SCHEDULED_MESSAGE };
    return { status: "updated", sessionKey: key, updated: fields };
  },
});
