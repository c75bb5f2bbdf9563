import { contextWindowOf, findAgent } from "../../config/agents";
import { keyOptionsOf } from "../../config/key-options";
import type { SwitchboardConfig } from "../../config/schema";
import { deriveChannel, displayKey, parseSessionKey } from "../../keys";
import { deriveTitle } from "./derived-title";
import type { SessionRecord } from "./record";

/** The D1 `session_index` row of a session, as column → value (migrations/0001 names the columns). */
export type IndexRow = Record<string, string | number | null>;

export const LIST_STATE = { listed: 0, archived: 1, hidden: 2 } as const;

/** Builds the index row from the session record: derived fields are computed here, once per write. */
export function indexRow(record: SessionRecord, config: SwitchboardConfig): IndexRow {
  const keyOptions = keyOptionsOf(config);
  const parsed = parseSessionKey(record.sessionKey, keyOptions);
  const hidden =
    !parsed ||
    parsed.isCronRun ||
    parsed.rest === "unknown" ||
    (parsed.rest === "global" && keyOptions.scope !== "global");
  const derivedTitle = deriveTitle(record);
  const key = displayKey(record.sessionKey, keyOptions);
  return {
    session_key: record.sessionKey,
    session_id: record.sessionId,
    agent_id: record.agentId,
    kind: parsed?.kind ?? "other",
    channel: parsed
      ? deriveChannel(parsed, { channel: record.recordedChannel, lastChannel: record.lastChannel })
      : "unknown",
    chat_type: record.chatType ?? parsed?.chatType ?? null,
    label: record.label ?? null,
    display_name: record.displayName ?? null,
    subject: record.subject ?? null,
    created_at: record.createdAt,
    updated_at: record.updatedAt,
    // The model that answered the last run (a fallback's when one did), else the one the next run asks.
    model: record.answeredModel ?? record.modelOverride ?? findAgent(config, record.agentId)?.model ?? null,
    model_override: record.modelOverride ? 1 : 0,
    thinking_level: record.thinkingLevel ?? null,
    verbose_level: record.verboseLevel ?? null,
    send_policy: record.sendPolicy ?? null,
    // The model's context window (OpenClaw's contextTokens), as configured when the row was written.
    context_tokens: contextWindowOf(config, record.agentId),
    input_tokens: record.inputTokens ?? null,
    output_tokens: record.outputTokens ?? null,
    total_tokens: record.totalTokens ?? null,
    estimated_cost_usd: record.estimatedCostUsd ?? null,
    status: record.status ?? null,
    started_at: record.startedAt ?? null,
    ended_at: record.endedAt ?? null,
    runtime_ms: record.runtimeMs ?? null,
    spawned_by: record.spawnedBy ?? null,
    spawned_by_id: record.spawnedById ?? null,
    parent_session_key: record.parentSessionKey ?? null,
    spawn_depth: record.spawnDepth,
    system_sent: record.systemSent ?? null,
    aborted_last_run: record.abortedLastRun ?? null,
    last_channel: record.lastChannel ?? null,
    last_to: record.lastTo ?? null,
    delivery_context: record.deliveryContext ? JSON.stringify(record.deliveryContext) : null,
    derived_title: derivedTitle,
    last_message_preview: record.lastMessagePreview ?? null,
    list_state: hidden ? LIST_STATE.hidden : record.archivedAt ? LIST_STATE.archived : LIST_STATE.listed,
    search_text: [record.displayName, record.label, record.subject, record.sessionId, key, record.sessionKey]
      .filter((part): part is string => Boolean(part))
      .join("\n")
      .toLowerCase(),
    version: record.version,
    spawn_task: record.spawn?.task ?? null,
    last_run_id: record.lastRunId ?? null,
    pinned: record.pinned ? 1 : 0,
    state_version: record.stateVersion ?? 0,
    collector: record.spawn?.collect ? 1 : 0,
  };
}

/**
 * An object's size as its index row reports it: rounded up to an eighth of its power of two (at least a
 * 4 KiB page), so the row's `object_bytes` — an indexed column (`session_index_agent_bytes`), a row written
 * each time it moves (SPEC §24) — moves every few turns of a growing session, not every turn. The storage
 * report's sums are then at most 12.5% over.
 */
export function reportedBytes(bytes: number): number {
  if (bytes <= 0) return 0;
  const step = 2 ** Math.max(12, Math.floor(Math.log2(bytes)) - 3);
  return Math.ceil(bytes / step) * step;
}
