import { displayKey, type KeyOptions } from "../keys";
import { LIST_STATE } from "./index-row";
import type { DeliveryContext } from "./meta";

/** A session as the tools and REST return it (SPEC §5.1 row fields; only those with values). */
export interface SessionRow {
  key: string;
  agentId: string;
  kind: string;
  channel: string;
  sessionId: string;
  label?: string;
  displayName?: string;
  subject?: string;
  createdAt?: number;
  updatedAt: number;
  model?: string;
  contextTokens?: number;
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  estimatedCostUsd?: number;
  status?: string;
  startedAt?: number;
  endedAt?: number;
  runtimeMs?: number;
  spawnedBy?: string;
  parentSessionKey?: string;
  spawnDepth?: number;
  thinkingLevel?: string;
  verboseLevel?: string;
  systemSent?: boolean;
  abortedLastRun?: boolean;
  sendPolicy?: string;
  lastChannel?: string;
  lastTo?: string;
  deliveryContext?: DeliveryContext;
  derivedTitle?: string;
  lastMessagePreview?: string;
  archived?: boolean;
  messages?: unknown[];
}

const copied = [
  ["agent_id", "agentId"],
  ["kind", "kind"],
  ["channel", "channel"],
  ["session_id", "sessionId"],
  ["label", "label"],
  ["display_name", "displayName"],
  ["subject", "subject"],
  ["created_at", "createdAt"],
  ["updated_at", "updatedAt"],
  ["model", "model"],
  ["context_tokens", "contextTokens"],
  ["input_tokens", "inputTokens"],
  ["output_tokens", "outputTokens"],
  ["total_tokens", "totalTokens"],
  ["estimated_cost_usd", "estimatedCostUsd"],
  ["status", "status"],
  ["started_at", "startedAt"],
  ["ended_at", "endedAt"],
  ["runtime_ms", "runtimeMs"],
  ["spawned_by", "spawnedBy"],
  ["parent_session_key", "parentSessionKey"],
  ["thinking_level", "thinkingLevel"],
  ["verbose_level", "verboseLevel"],
  ["send_policy", "sendPolicy"],
  ["last_channel", "lastChannel"],
  ["last_to", "lastTo"],
  ["derived_title", "derivedTitle"],
  ["last_message_preview", "lastMessagePreview"],
] as const;

/** Maps an index row (D1, or one the object built) to the row callers see. */
export function toSessionRow(columns: Record<string, unknown>, keyOptions: KeyOptions): SessionRow {
  const row: Record<string, unknown> = { key: displayKey(String(columns.session_key), keyOptions) };
  for (const [column, field] of copied) {
    const value = columns[column];
    if (value !== null && value !== undefined) row[field] = value;
  }
  if (Number(columns.spawn_depth) > 0) row.spawnDepth = Number(columns.spawn_depth);
  if (columns.system_sent !== null && columns.system_sent !== undefined)
    row.systemSent = Boolean(columns.system_sent);
  if (columns.aborted_last_run !== null && columns.aborted_last_run !== undefined) {
    row.abortedLastRun = Boolean(columns.aborted_last_run);
  }
  if (typeof columns.delivery_context === "string")
    row.deliveryContext = JSON.parse(columns.delivery_context);
  if (columns.list_state === LIST_STATE.archived) row.archived = true;
  return row as unknown as SessionRow;
}
