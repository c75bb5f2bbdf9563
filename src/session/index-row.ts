import { findAgent } from "../config/agents";
import { keyOptionsOf } from "../config/key-options";
import type { SwitchboardConfig } from "../config/schema";
import { deriveChannel, displayKey, parseSessionKey } from "../keys";
import { deriveTitle } from "./derived-title";
import type { SessionMeta } from "./meta";

/** The D1 `session_index` row of a session, as column → value (migrations/0001 names the columns). */
export type IndexColumns = Record<string, string | number | null>;

export const LIST_STATE = { listed: 0, archived: 1, hidden: 2 } as const;

/** Builds the index row from the object's record: derived fields are computed here, once per write. */
export function indexColumns(meta: SessionMeta, config: SwitchboardConfig): IndexColumns {
  const keyOptions = keyOptionsOf(config);
  const parsed = parseSessionKey(meta.sessionKey, keyOptions);
  const hidden =
    !parsed ||
    parsed.isCronRun ||
    parsed.rest === "unknown" ||
    (parsed.rest === "global" && keyOptions.scope !== "global");
  const derivedTitle = deriveTitle(meta);
  const key = displayKey(meta.sessionKey, keyOptions);
  return {
    session_key: meta.sessionKey,
    session_id: meta.sessionId,
    agent_id: meta.agentId,
    kind: parsed?.kind ?? "other",
    channel: parsed
      ? deriveChannel(parsed, { channel: meta.recordedChannel, lastChannel: meta.lastChannel })
      : "unknown",
    chat_type: meta.chatType ?? parsed?.chatType ?? null,
    label: meta.label ?? null,
    display_name: meta.displayName ?? null,
    subject: meta.subject ?? null,
    created_at: meta.createdAt,
    updated_at: meta.updatedAt,
    model: meta.modelOverride ?? findAgent(config, meta.agentId)?.model ?? null,
    model_override: meta.modelOverride ? 1 : 0,
    thinking_level: meta.thinkingLevel ?? null,
    verbose_level: meta.verboseLevel ?? null,
    send_policy: meta.sendPolicy ?? null,
    context_tokens: meta.contextTokens ?? null,
    input_tokens: meta.inputTokens ?? null,
    output_tokens: meta.outputTokens ?? null,
    total_tokens: meta.totalTokens ?? null,
    estimated_cost_usd: meta.estimatedCostUsd ?? null,
    status: meta.status ?? null,
    started_at: meta.startedAt ?? null,
    ended_at: meta.endedAt ?? null,
    runtime_ms: meta.runtimeMs ?? null,
    spawned_by: meta.spawnedBy ?? null,
    parent_session_key: meta.parentSessionKey ?? null,
    spawn_depth: meta.spawnDepth,
    system_sent: meta.systemSent ?? null,
    aborted_last_run: meta.abortedLastRun ?? null,
    last_channel: meta.lastChannel ?? null,
    last_to: meta.lastTo ?? null,
    delivery_context: meta.deliveryContext ? JSON.stringify(meta.deliveryContext) : null,
    derived_title: derivedTitle,
    last_message_preview: meta.lastMessagePreview ?? null,
    list_state: hidden ? LIST_STATE.hidden : meta.archivedAt ? LIST_STATE.archived : LIST_STATE.listed,
    search_text: [meta.displayName, meta.label, meta.subject, meta.sessionId, key, meta.sessionKey]
      .filter((part): part is string => Boolean(part))
      .join("\n")
      .toLowerCase(),
    version: meta.version,
    spawn_task: meta.spawn?.task ?? null,
    last_run_id: meta.lastRunId ?? null,
  };
}
