import { z } from "zod";
import { camelCase, snakeCase } from "../../storage/columns";

/** Where a session's replies go (SPEC §1 delivery context); a numeric threadId stays numeric. */
export const deliveryContextSchema = z.object({
  channel: z.string().min(1),
  to: z.string().min(1),
  accountId: z.string().optional(),
  threadId: z.union([z.string(), z.number()]).optional(),
});
export type DeliveryContext = z.infer<typeof deliveryContextSchema>;

/** Where one run's reply goes: the chat, and what belongs to the message it answers (SPEC §21). */
export const replyTargetSchema = deliveryContextSchema.extend({
  /**
   * A run's reply target only (never the session's context): the platform message it answers, so the
   * reply quotes it (Telegram `reply_to_message_id`; Slack's thread when the chat has none).
   */
  replyToMessageId: z.string().optional(),
  /**
   * A run's reply target only: the Discord interaction that started it, whose token posts follow-ups
   * until `expiresAt` (ms; 15 minutes after it arrived). Kept off the session's context and its rows.
   */
  interaction: z.object({ id: z.string(), token: z.string(), expiresAt: z.number() }).optional(),
});
export type ReplyTarget = z.infer<typeof replyTargetSchema>;

/** The chat a reply target names, without what belongs to one message (what a session keeps). */
export function chatOf(target: ReplyTarget): DeliveryContext {
  const { replyToMessageId: _message, interaction: _interaction, ...chat } = target;
  return chat;
}

/** A sub-agent's spawn settings (SPEC §5.4), kept with the child. */
export const spawnInfoSchema = z.object({
  requesterKey: z.string(),
  task: z.string(),
  label: z.string().optional(),
  mode: z.enum(["run", "session"]),
  cleanup: z.enum(["delete", "keep"]),
  archiveAfterMinutes: z.number(),
  /**
   * A thread-bound child (`sessions_spawn { thread: true }`, SPEC §21): the platform thread it was
   * opened in, where its requester's update on its completion goes too.
   */
  thread: deliveryContextSchema.optional(),
  /**
   * A collector child (SPEC §15): its result is kept for the requester's agents_wait, never announced;
   * with `outputSchema`, the child gets `structured_output` and must record a result matching it.
   * `runId` is the member's (the spawn's first run): the task reports under it whatever run ends it.
   */
  collect: z
    .object({
      groupId: z.string(),
      runId: z.string().optional(),
      outputSchema: z.record(z.string(), z.unknown()).optional(),
    })
    .optional(),
});
export type SpawnInfo = z.infer<typeof spawnInfoSchema>;

export const sessionStatuses = ["running", "done", "failed", "killed", "timeout"] as const;

/**
 * The session record: the session object's own row of table `session`. Each field lives in the column
 * of its snake_case name; object and array fields are stored as JSON text. The index row, the row callers
 * see (row.ts) and the OpenAPI schema are all built from it.
 */
export const sessionRecordSchema = z.object({
  sessionKey: z.string(),
  sessionId: z.string(),
  agentId: z.string(),
  /** The channel given at creation (an inbound message's channel). */
  recordedChannel: z.string().optional(),
  chatType: z.enum(["direct", "group", "channel"]).optional(),
  label: z.string().optional(),
  displayName: z.string().optional(),
  subject: z.string().optional(),
  createdAt: z.number(),
  updatedAt: z.number(),
  modelOverride: z.string().optional(),
  thinkingLevel: z.string().optional(),
  verboseLevel: z.string().optional(),
  sendPolicy: z.enum(["allow", "deny"]).optional(),
  contextTokens: z.number().optional(),
  inputTokens: z.number().optional(),
  outputTokens: z.number().optional(),
  totalTokens: z.number().optional(),
  estimatedCostUsd: z.number().optional(),
  /** The model that answered the session's last run (a fallback's when one did; SPEC §20). */
  answeredModel: z.string().optional(),
  status: z.enum(sessionStatuses).optional(),
  startedAt: z.number().optional(),
  endedAt: z.number().optional(),
  runtimeMs: z.number().optional(),
  spawnedBy: z.string().optional(),
  /** The sessionId of the session that spawned this one (SPEC §23), once the parent told it. */
  spawnedById: z.string().optional(),
  parentSessionKey: z.string().optional(),
  spawnDepth: z.number(),
  systemSent: z.number().optional(),
  abortedLastRun: z.number().optional(),
  lastChannel: z.string().optional(),
  lastTo: z.string().optional(),
  deliveryContext: deliveryContextSchema.optional(),
  firstUserText: z.string().optional(),
  lastMessagePreview: z.string().optional(),
  archivedAt: z.number().optional(),
  deletedAt: z.number().optional(),
  /** Grows with every write (and across re-creation): guards index upserts and the kept copy below. */
  version: z.number(),
  spawn: spawnInfoSchema.optional(),
  /** A sub-agent's ancestors, nearest first: where its completion goes if its requester is gone. */
  lineage: z.array(z.string()).optional(),
  archiveAt: z.number().optional(),
  lastRunId: z.string().optional(),
  /** 1 when pinned with the `sessions` tool (a SQLite boolean, like systemSent). */
  pinned: z.number().optional(),
  /** The last event's seq (SPEC §13); written only by the event log. */
  stateVersion: z.number().optional(),
  /** How many times the session was compacted (SPEC §20; OpenClaw's `compactionCount`). */
  compactionCount: z.number().optional(),
});
export type SessionRecord = z.infer<typeof sessionRecordSchema>;
type Field = keyof SessionRecord;

/** Fields stored as JSON text: the object and array ones, read off the schema. */
const JSON_FIELDS: ReadonlySet<string> = new Set(
  Object.entries(sessionRecordSchema.shape)
    .filter(([, schema]) => {
      const inner = schema instanceof z.ZodOptional ? schema.unwrap() : schema;
      return inner instanceof z.ZodObject || inner instanceof z.ZodArray;
    })
    .map(([field]) => field),
);

const toColumnValue = (field: string, value: unknown): unknown =>
  value === null || value === undefined ? null : JSON_FIELDS.has(field) ? JSON.stringify(value) : value;

/** Fields a write may change after creation (an allow-list: nothing else is ever updated). */
const WRITABLE = [
  "label",
  "displayName",
  "subject",
  "modelOverride",
  "thinkingLevel",
  "verboseLevel",
  "sendPolicy",
  "recordedChannel",
  "chatType",
  "deliveryContext",
  "lastChannel",
  "lastTo",
  "updatedAt",
  "firstUserText",
  "lastMessagePreview",
  "archivedAt",
  "deletedAt",
  "status",
  "startedAt",
  "endedAt",
  "runtimeMs",
  "inputTokens",
  "outputTokens",
  "totalTokens",
  "estimatedCostUsd",
  "answeredModel",
  "contextTokens",
  "abortedLastRun",
  "archiveAt",
  "lastRunId",
  "pinned",
  "stateVersion",
  "compactionCount",
  "spawnedById",
] as const satisfies readonly Field[];
const writable: ReadonlySet<string> = new Set(WRITABLE);

/** Changes to the record; null clears a field. */
export type RecordChanges = { [K in (typeof WRITABLE)[number]]?: SessionRecord[K] | null };

// The record is read many times per request (every check, every re-arm, every outbox entry), and
// reading all of its columns showed in the runs' CPU profiles. So the last record read is kept per
// database: every writer below drops it, and a read first checks the one-column `version`, which every
// write changes — so a record read inside a transaction that was then rolled back is never served either.
const kept = new WeakMap<SqlStorage, SessionRecord>();

/** Drops the kept record (any write to table `session`, or a wipe of the object's storage). */
export function forgetRecord(sql: SqlStorage): void {
  kept.delete(sql);
}

/** The record, including a deleted session's tombstone; undefined before creation. */
export function readRecord(sql: SqlStorage): SessionRecord | undefined {
  const last = kept.get(sql);
  if (last) {
    const current = sql.exec<{ version: number }>("SELECT version FROM session WHERE id = 1").toArray()[0];
    if (current?.version === last.version) return { ...last };
  }
  const row = sql.exec("SELECT * FROM session WHERE id = 1").toArray()[0];
  if (!row) {
    kept.delete(sql);
    return undefined;
  }
  const fields: Record<string, unknown> = {};
  for (const column in row) {
    const value = row[column];
    if (value === null || value === undefined || column === "id") continue;
    const field = camelCase(column);
    if (!JSON_FIELDS.has(field)) fields[field] = value;
    else if (value !== "") fields[field] = JSON.parse(String(value));
  }
  const record = sessionRecordSchema.parse(fields);
  kept.set(sql, record);
  return { ...record };
}

/** The record of a session that exists (not deleted). */
export function liveRecord(sql: SqlStorage): SessionRecord | undefined {
  const record = readRecord(sql);
  return record && record.deletedAt === undefined ? record : undefined;
}

/** Writes the given fields (null clears one) and bumps the version that guards index upserts. */
export function updateRecord(sql: SqlStorage, changes: RecordChanges): void {
  const sets: string[] = ["version = MAX(version + 1, ?)"];
  const values: unknown[] = [Date.now()];
  for (const [field, value] of Object.entries(changes)) {
    if (value === undefined || !writable.has(field)) continue;
    sets.push(`${snakeCase(field)} = ?`);
    values.push(toColumnValue(field, value));
  }
  forgetRecord(sql);
  sql.exec(`UPDATE session SET ${sets.join(", ")} WHERE id = 1`, ...values);
}

/** The fields a session is created with; the rest start empty. */
export type NewRecord = Omit<SessionRecord, "version" | "sessionId"> & { sessionId?: string };

/**
 * Writes a new record, replacing a deleted session's tombstone. Its version only grows, so the new
 * record never shares one with the old (index upserts and the kept copy rely on it); so does its
 * stateVersion.
 */
export function insertRecord(sql: SqlStorage, record: NewRecord, now: number): void {
  const previous = sql
    .exec<{ version: number; state_version: number | null }>(
      "SELECT version, state_version FROM session WHERE id = 1",
    )
    .toArray()[0];
  const full: SessionRecord = sessionRecordSchema.parse({
    sessionId: crypto.randomUUID(),
    ...record,
    version: Math.max(now, (previous?.version ?? 0) + 1),
    // The event log goes on from the deleted session's last seq: a stream cursor never names two events.
    ...(previous?.state_version ? { stateVersion: previous.state_version } : {}),
  });
  const entries = Object.entries(full).filter(([, value]) => value !== undefined);
  forgetRecord(sql);
  sql.exec("DELETE FROM session");
  sql.exec(
    `INSERT INTO session (id, ${entries.map(([field]) => snakeCase(field)).join(", ")})
     VALUES (1, ${entries.map(() => "?").join(", ")})`,
    ...entries.map(([field, value]) => toColumnValue(field, value)),
  );
}

/**
 * In an object holding no record, the key's deleted session as its tombstone with only its last
 * stateVersion (kept in D1 after its storage was wiped): the record created next goes on from it
 * (insertRecord), as it would from a tombstone still in storage. Nothing of the old session but the number.
 */
export function seedTombstone(sql: SqlStorage, sessionKey: string, stateVersion: number): void {
  forgetRecord(sql);
  sql.exec(
    `INSERT OR IGNORE INTO session (id, session_key, session_id, agent_id, created_at, updated_at, deleted_at,
       version, state_version) VALUES (1, ?, '', '', 0, 0, 0, 0, ?)`,
    sessionKey,
    stateVersion,
  );
}
