import { camelCase } from "../storage/columns";

export interface DeliveryContext {
  channel: string;
  to: string;
  accountId?: string;
  threadId?: string | number;
}

/** The session object's own record of its session (table `session`, one row). */
export interface SessionMeta {
  sessionKey: string;
  sessionId: string;
  agentId: string;
  recordedChannel?: string;
  chatType?: "direct" | "group" | "channel";
  label?: string;
  displayName?: string;
  subject?: string;
  createdAt: number;
  updatedAt: number;
  modelOverride?: string;
  thinkingLevel?: string;
  verboseLevel?: string;
  sendPolicy?: "allow" | "deny";
  contextTokens?: number;
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  estimatedCostUsd?: number;
  status?: "running" | "done" | "failed" | "killed" | "timeout";
  startedAt?: number;
  endedAt?: number;
  runtimeMs?: number;
  spawnedBy?: string;
  parentSessionKey?: string;
  spawnDepth: number;
  systemSent?: number;
  abortedLastRun?: number;
  lastChannel?: string;
  lastTo?: string;
  deliveryContext?: DeliveryContext;
  firstUserText?: string;
  lastMessagePreview?: string;
  archivedAt?: number;
  deletedAt?: number;
  version: number;
  /** A sub-agent's spawn settings (SPEC §5.4). */
  spawn?: SpawnInfo;
  /** A sub-agent's ancestors, nearest first: where its completion goes if its requester is gone. */
  lineage?: string[];
  archiveAt?: number;
  lastRunId?: string;
}

export interface SpawnInfo {
  requesterKey: string;
  task: string;
  label?: string;
  mode: "run" | "session";
  cleanup: "delete" | "keep";
  archiveAfterMinutes: number;
}

// Columns stored as JSON text; an empty or NULL one is an absent field.
const JSON_COLUMNS = new Set(["delivery_context", "spawn", "lineage"]);

// The record is read many times per request (every check, every re-arm, every effect), and reading all
// of its columns showed in the runs' CPU profiles. So the last record read is kept per database: the
// writers below drop it, and a read first checks the one-column `version`, which every write changes —
// so a record read inside a transaction that was then rolled back is never served either.
const lastRead = new WeakMap<SqlStorage, SessionMeta>();

/** Drops the kept record: for every write to the `session` table. */
export function forgetMeta(sql: SqlStorage): void {
  lastRead.delete(sql);
}

/** Reads the single `session` row, or undefined before creation. */
export function readMeta(sql: SqlStorage): SessionMeta | undefined {
  const kept = lastRead.get(sql);
  if (kept) {
    const current = sql.exec<{ version: number }>("SELECT version FROM session WHERE id = 1").toArray()[0];
    if (current?.version === kept.version) return { ...kept };
  }
  const row = sql.exec("SELECT * FROM session WHERE id = 1").toArray()[0];
  if (!row) {
    lastRead.delete(sql);
    return undefined;
  }
  const meta: Record<string, unknown> = {};
  for (const column in row) {
    const value = row[column];
    if (value === null || value === undefined || column === "id") continue;
    if (!JSON_COLUMNS.has(column)) meta[camelCase(column)] = value;
    else if (value !== "") meta[camelCase(column)] = JSON.parse(String(value));
  }
  lastRead.set(sql, meta as unknown as SessionMeta);
  return { ...(meta as unknown as SessionMeta) };
}

/** Mutable columns and the SQL column each one lives in (an allow-list: nothing else is ever written). */
const writableColumns = {
  label: "label",
  displayName: "display_name",
  subject: "subject",
  modelOverride: "model_override",
  thinkingLevel: "thinking_level",
  verboseLevel: "verbose_level",
  sendPolicy: "send_policy",
  recordedChannel: "recorded_channel",
  chatType: "chat_type",
  deliveryContext: "delivery_context",
  lastChannel: "last_channel",
  lastTo: "last_to",
  updatedAt: "updated_at",
  firstUserText: "first_user_text",
  lastMessagePreview: "last_message_preview",
  archivedAt: "archived_at",
  deletedAt: "deleted_at",
  status: "status",
  startedAt: "started_at",
  endedAt: "ended_at",
  runtimeMs: "runtime_ms",
  inputTokens: "input_tokens",
  outputTokens: "output_tokens",
  totalTokens: "total_tokens",
  contextTokens: "context_tokens",
  abortedLastRun: "aborted_last_run",
  archiveAt: "archive_at",
  lastRunId: "last_run_id",
} as const;

export type MetaChanges = { [K in keyof typeof writableColumns]?: SessionMeta[K] | null };

/** Writes the given fields (null clears one) and bumps the version that guards index upserts. */
export function updateMeta(sql: SqlStorage, changes: MetaChanges): void {
  const sets: string[] = ["version = MAX(version + 1, ?)"];
  const values: unknown[] = [Date.now()];
  for (const [field, value] of Object.entries(changes)) {
    if (value === undefined) continue;
    sets.push(`${writableColumns[field as keyof typeof writableColumns]} = ?`);
    values.push(field === "deliveryContext" && value !== null ? JSON.stringify(value) : value);
  }
  forgetMeta(sql);
  sql.exec(`UPDATE session SET ${sets.join(", ")} WHERE id = 1`, ...values);
}
