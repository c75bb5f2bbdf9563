import { z } from "zod";
import { keyOptionsOf } from "../../config/key-options";
import type { SwitchboardConfig } from "../../config/schema";
import { displayKey, type KeyOptions } from "../../keys";
import { snakeCase } from "../../storage/columns";
import { type IndexRow, indexRow, LIST_STATE } from "./index-row";
import { deliveryContextSchema, type SessionRecord, sessionRecordSchema } from "./record";

const record = sessionRecordSchema.shape;

/** A session as the tools and REST return it (SPEC §5.1 row fields, in order; only those with values). */
export const sessionRowSchema = z
  .object({
    /** The display key (`main` for the internal `global` one). */
    key: z.string(),
    agentId: record.agentId,
    kind: z.string(),
    channel: z.string(),
    sessionId: record.sessionId,
    label: record.label,
    displayName: record.displayName,
    subject: record.subject,
    createdAt: record.createdAt.optional(),
    updatedAt: record.updatedAt,
    model: z.string().optional(),
    contextTokens: record.contextTokens,
    inputTokens: record.inputTokens,
    outputTokens: record.outputTokens,
    totalTokens: record.totalTokens,
    estimatedCostUsd: record.estimatedCostUsd,
    status: record.status,
    startedAt: record.startedAt,
    endedAt: record.endedAt,
    runtimeMs: record.runtimeMs,
    spawnedBy: record.spawnedBy,
    parentSessionKey: record.parentSessionKey,
    /** sessions_list: the keys of the sessions this one spawned that the caller may see, newest first. */
    childSessions: z.array(z.string()).optional(),
    spawnDepth: z.number().optional(),
    thinkingLevel: record.thinkingLevel,
    verboseLevel: record.verboseLevel,
    systemSent: z.boolean().optional(),
    abortedLastRun: z.boolean().optional(),
    sendPolicy: record.sendPolicy,
    lastChannel: record.lastChannel,
    lastTo: record.lastTo,
    deliveryContext: record.deliveryContext,
    derivedTitle: z.string().optional(),
    lastMessagePreview: record.lastMessagePreview,
    /** On every row (false included). */
    archived: z.boolean().optional(),
    /** On every row (false included); set with the `sessions` tool. */
    pinned: z.boolean().optional(),
    /** The session's last event seq (SPEC §13), present once above 0. */
    stateVersion: z.number().optional(),
    /** How many times the session was compacted (SPEC §20), present once above 0; not on list rows. */
    compactionCount: z.number().optional(),
    /** With sessions_list `messageLimit`: the newest messages, made safe. */
    messages: z.array(z.unknown()).optional(),
  })
  .describe(
    "A session: key, agent, kind, channel, ids, labels, timestamps, model, tokens, delivery context.",
  );
export type SessionRow = z.infer<typeof sessionRowSchema>;

/** Fields copied from the index column of the same (snake_case) name, as they are. */
const COPIED = Object.keys(sessionRowSchema.shape).filter(
  (field) =>
    ![
      "key",
      "spawnDepth",
      "childSessions",
      "systemSent",
      "abortedLastRun",
      "deliveryContext",
      "archived",
      "pinned",
      "stateVersion",
      "compactionCount",
      "messages",
    ].includes(field),
);
const COPIED_COLUMNS = COPIED.map((field) => [snakeCase(field), field] as const);

/** The index columns `toSessionRow` reads: all a list page needs to select (the rest stay in D1). */
export const SESSION_ROW_COLUMNS: readonly string[] = [
  "session_key",
  ...COPIED_COLUMNS.map(([column]) => column),
  "spawn_depth",
  "system_sent",
  "aborted_last_run",
  "delivery_context",
  "list_state",
  "pinned",
  "state_version",
];

/** Maps an index row (D1, or one the object built) to the row callers see. */
export function toSessionRow(columns: IndexRow, keyOptions: KeyOptions): SessionRow {
  const row: Record<string, unknown> = { key: displayKey(String(columns.session_key), keyOptions) };
  for (const [column, field] of COPIED_COLUMNS) {
    const value = columns[column];
    if (value !== null && value !== undefined) row[field] = value;
  }
  if (Number(columns.spawn_depth) > 0) row.spawnDepth = Number(columns.spawn_depth);
  if (columns.system_sent !== null && columns.system_sent !== undefined)
    row.systemSent = Boolean(columns.system_sent);
  if (columns.aborted_last_run !== null && columns.aborted_last_run !== undefined)
    row.abortedLastRun = Boolean(columns.aborted_last_run);
  if (typeof columns.delivery_context === "string")
    row.deliveryContext = deliveryContextSchema.parse(JSON.parse(columns.delivery_context));
  // Both on every row, false included, as OpenClaw's rows carry them.
  row.archived = columns.list_state === LIST_STATE.archived;
  row.pinned = Number(columns.pinned) > 0;
  if (Number(columns.state_version) > 0) row.stateVersion = Number(columns.state_version);
  return row as SessionRow;
}

/** The row callers see of a session record: the same as its index row would list. */
export function sessionRowOf(record: SessionRecord, config: SwitchboardConfig): SessionRow {
  const row = toSessionRow(indexRow(record, config), keyOptionsOf(config));
  // Kept by the object alone (the index has no column for it): the status card and a session's own row.
  return record.compactionCount ? { ...row, compactionCount: record.compactionCount } : row;
}
