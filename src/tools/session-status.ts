import { z } from "zod";
import { configuredModels } from "../config/agents";
import { countChildrenByStatus } from "../index-db/lookup";
import { checkSessionVisible } from "../policy/visibility";
import { sessionKeyParam } from "./args";
import { resolveSessionReference } from "./resolve-session";
import { statusCard } from "./status-card";
import { defineTool } from "./types";

export const sessionStatus = defineTool({
  name: "session_status",
  description:
    "Show a session's status card (model, tokens, activity, sub-agents); optionally set its model override ('default' clears it).",
  schema: z.object({
    sessionKey: sessionKeyParam().optional().describe("default: your own session"),
    model: z.string().optional().describe("a configured model, or 'default' to clear the override"),
  }),
  async handler(ctx, params) {
    const lookup = await resolveSessionReference(ctx, params.sessionKey ?? "current");
    if (!lookup.ok) return { status: lookup.status, error: lookup.error };
    const visible = checkSessionVisible(ctx.config, ctx.requester, lookup.session, "status");
    if (!visible.ok) return { status: visible.status, error: visible.error };
    if (
      params.model !== undefined &&
      params.model !== "default" &&
      !configuredModels(ctx.config).has(params.model)
    ) {
      return {
        status: "error",
        error: `Unknown model "${params.model}". Configured models: ${[...configuredModels(ctx.config)].join(", ")}.`,
      };
    }
    const stub = ctx.session(lookup.session.sessionKey);
    const described =
      params.model === undefined
        ? await stub.describe()
        : await stub.patch({ modelOverride: params.model === "default" ? null : params.model });
    if (!described.ok)
      return { status: "error", error: `Session not found: ${params.sessionKey ?? "current"}.` };
    const row = described.value;
    const agentModel = ctx.config.agents.list.find((agent) => agent.id === row.agentId)?.model;
    return {
      ok: true,
      sessionKey: row.key,
      changedModel: params.model !== undefined,
      statusText: statusCard(row, {
        modelOverridden: row.model !== undefined && row.model !== agentModel,
        children: await countChildrenByStatus(ctx.db, lookup.session.sessionKey),
        now: Date.now(),
      }),
    };
  },
});
