import { z } from "zod";
import { cronRunReportSchema } from "../../cron/run-report";
import { outboundMessageSchema } from "../../queue/messages";
import { transcriptMessageShape } from "../../transcript/message";
import { collectorResultDeliverySchema, turnDeliverySchema } from "../api";
import { readRecord } from "../record/record";
import { eraseQuotedJson } from "./quoted-text";

const COMPLETION_PREFIX = "completion:";

/** The outbox key of a run's completion (src/session/writes/run-ending.ts). */
export const completionKey = (runId: string) => `${COMPLETION_PREFIX}${runId}`;

/**
 * What the session owes others, by kind. Every payload is parsed on read: an entry written by another
 * version, or damaged, is reported and dropped rather than retried forever.
 */
const payloadSchemas = {
  /** The session's index row (D1 `session_index`), at this record version or later. */
  index_sync: z.object({ version: z.number() }),
  /** Removes the index row; once delivered, a deleted session's storage is wiped. */
  index_delete: z.object({ sessionKey: z.string(), version: z.number() }),
  /** runId → session key in D1 `run_index`. */
  run_index: z.object({
    runId: z.string(),
    sessionKey: z.string(),
    createdAt: z.number(),
    /** A collector child's run: the requester that keeps its result (SPEC §15). */
    spawnerKey: z.string().optional(),
  }),
  /** A turn in another session: sends, reply-back and announce steps, completions. */
  turn: turnDeliverySchema,
  /** A post to a channel (reply, announce, command answer), handed to the Queue. */
  post: outboundMessageSchema,
  /** A message steered into a webhook agent's run in flight, posted to the agent (signed). */
  steer_notice: z.object({
    agentId: z.string(),
    runId: z.string(),
    sessionKey: z.string(),
    message: transcriptMessageShape,
  }),
  /** The session deletes itself (a silent `cleanup: "delete"` sub-agent). */
  remove_session: z.object({}),
  /** A watcher's coalesced notice that this (watched) session changed (SPEC §13): `changesSince <n>`. */
  watch_notice: z.object({
    watcherKey: z.string(),
    targetKey: z.string(),
    n: z.number().int().nonnegative(),
    /** When the watcher registered (absent in notices owed before it was kept). */
    since: z.number().optional(),
  }),
  /** A delivery record's row in D1 \`delivery_index\` (SPEC §16), or its removal once it is gone. */
  delivery_index: z.object({ deliveryId: z.string(), change: z.string().optional() }),
  /** Messages trimmed from the transcript (SPEC §23 `maxMessages`): their rows leave the D1 search index. */
  search_forget: z.object({ messageIds: z.array(z.string()).max(100) }),
  /** The transcript's messages up to this seq in the D1 search index (SPEC §18), written in chunks. */
  search_index: z.object({ throughSeq: z.number().int().nonnegative() }),
  /**
   * A collector member's child (SPEC §15): its held run released once the member has a running slot,
   * or killed (`kill`) when the member was cancelled first; tried until `deadlineAt`.
   */
  collector_release: z.object({
    runId: z.string(),
    childKey: z.string(),
    deadlineAt: z.number(),
    kill: z.literal(true).optional(),
  }),
  /** A collector run's result, handed to its requester as a record (never a turn). */
  collector_result: collectorResultDeliverySchema,
  /**
   * An ended run's usage for its agent's daily spend (SPEC §20 budgets), owed by a session whose agent
   * has a daily cap: the agent object adds it once per runId, however often it is delivered.
   */
  agent_usage: z.object({
    agentId: z.string(),
    runId: z.string(),
    day: z.string(),
    tokens: z.number().nonnegative(),
    costUsd: z.number().nonnegative(),
  }),
  /**
   * A signed outbound webhook (SPEC §22): a run's outcome, a cron job's or a hook's delivery. The body is
   * kept as the exact text to sign, so every attempt posts the same bytes under the same key.
   */
  webhook: z.object({ url: z.string(), body: z.string(), idempotencyKey: z.string() }),
  /** A cron run's end for its agent's scheduler (SPEC §22): taken once per runId, however often delivered. */
  cron_run_end: cronRunReportSchema,
  /**
   * A deleted watcher's cursor removed from a session it watched (SPEC §23): the rows registered
   * before its deletion (`before`), so a session of its key created later keeps its own.
   */
  unwatch: z.object({ targetKey: z.string(), watcherKey: z.string(), before: z.number() }),
  /** A sub-agent session, just created, noted by the session that spawned it (its `child` table). */
  child_created: z.object({ parentKey: z.string(), childKey: z.string(), runId: z.string().optional() }),
} as const;

export type OutboxKind = keyof typeof payloadSchemas;
export type OutboxPayload<K extends OutboxKind> = z.infer<(typeof payloadSchemas)[K]>;

/** An entry as read back, with its payload parsed for its kind. */
export type OutboxEntry = {
  [K in OutboxKind]: {
    id: number;
    /** The entry's dedupe key: one pending entry per key; the ledger finds its record by it. */
    key: string;
    kind: K;
    payload: OutboxPayload<K>;
    attempts: number;
    nextAttemptAt: number;
    raw: string;
  };
}[OutboxKind];

/**
 * Adds an entry in the same transaction as the change that owes it. One pending entry per `key`: a newer
 * change replaces an undelivered older one (the index only needs the latest).
 */
export function addToOutbox<K extends OutboxKind>(
  sql: SqlStorage,
  kind: K,
  key: string,
  payload: OutboxPayload<K>,
  firstAttemptAt = Date.now(),
): void {
  sql.exec(
    `INSERT INTO outbox (kind, dedupe_key, payload, next_attempt_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (dedupe_key) DO UPDATE SET kind = excluded.kind, payload = excluded.payload, attempts = 0,
       next_attempt_at = excluded.next_attempt_at, last_error = NULL`,
    kind,
    key,
    JSON.stringify(payload),
    firstAttemptAt,
  );
}

/**
 * Erasure (SPEC §23): entries still owed whose payload quotes an erased text (a queued send, a post)
 * carry the marker instead. A pass delivering one meanwhile finds its payload changed and leaves it
 * owed (`settleEntry`), so what goes out next is the erased payload. Answers the entries rewritten.
 */
export function eraseOutboxQuotes(sql: SqlStorage, texts: readonly string[], marker: string): number {
  return eraseQuotedJson(sql, { table: "outbox", id: "id", column: "payload" }, texts, marker);
}

/** Drops an entry its owner settled another way (a send the Worker put on the Queue itself). */
export function removeFromOutbox(sql: SqlStorage, key: string): boolean {
  return sql.exec("DELETE FROM outbox WHERE dedupe_key = ?", key).rowsWritten > 0;
}

/** Owes the index the session's current row. */
export function addIndexSync(sql: SqlStorage): void {
  addToOutbox(sql, "index_sync", "index", { version: readRecord(sql)?.version ?? 0 });
}

type EntryRow = {
  id: number;
  kind: string;
  dedupe_key: string;
  payload: string;
  attempts: number;
  next_attempt_at: number;
};

function parseEntry(row: EntryRow): OutboxEntry | undefined {
  if (!(row.kind in payloadSchemas)) return undefined;
  const kind = row.kind as OutboxKind;
  let json: unknown;
  try {
    json = JSON.parse(row.payload);
  } catch {
    return undefined;
  }
  const parsed = payloadSchemas[kind].safeParse(json);
  if (!parsed.success) return undefined;
  return {
    id: row.id,
    key: row.dedupe_key,
    kind,
    payload: parsed.data,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    raw: row.payload,
  } as OutboxEntry;
}

/**
 * The entries due by `now` (their retry time has come; an inline pass's lease has run out), oldest
 * first; one that cannot be read is logged and removed. With `ids`, only those (an inline pass's own).
 */
export function dueEntries(sql: SqlStorage, now: number, ids?: readonly number[]): OutboxEntry[] {
  const rows = (
    ids
      ? sql.exec<EntryRow>(
          `SELECT id, kind, dedupe_key, payload, attempts, next_attempt_at FROM outbox
           WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id`,
          JSON.stringify(ids),
        )
      : sql.exec<EntryRow>(
          `SELECT id, kind, dedupe_key, payload, attempts, next_attempt_at FROM outbox
           WHERE next_attempt_at <= ? ORDER BY id`,
          now,
        )
  ).toArray();
  const entries: OutboxEntry[] = [];
  for (const row of rows) {
    const entry = parseEntry(row);
    if (entry) entries.push(entry);
    else {
      console.error(
        `session outbox: dropped entry ${row.id} of kind ${row.kind}: its payload does not parse`,
      );
      sql.exec("DELETE FROM outbox WHERE id = ?", row.id);
    }
  }
  return entries;
}

/** The kinds that are one D1 index write each (src/session/outbox/outbox-index.ts batches them). */
const INDEX_WRITE_KINDS = [
  "index_sync",
  "run_index",
  "delivery_index",
  "search_index",
  "search_forget",
] as const;

/** The effects that are one D1 write each, so that a pass can send them together in one batch. */
export type IndexWrite = Extract<OutboxEntry, { kind: (typeof INDEX_WRITE_KINDS)[number] }>;
export const isIndexWrite = (entry: OutboxEntry): entry is IndexWrite =>
  (INDEX_WRITE_KINDS as readonly string[]).includes(entry.kind);

/**
 * Holds the index writes owed now and never tried until `until` (SPEC §24 "One index write per turn"):
 * the run started now writes them with its end's in one D1 batch (`heldIndexEntries`), or, if it runs
 * longer, with its listing as running. They stay in the outbox meanwhile, so a crash loses none of
 * them: the alarm delivers them at `until`.
 */
export function holdIndexWrites(sql: SqlStorage, now: number, until: number): void {
  sql.exec(
    `UPDATE outbox SET next_attempt_at = ? WHERE attempts = 0 AND next_attempt_at <= ?
       AND kind IN (SELECT value FROM json_each(?))`,
    until,
    now,
    JSON.stringify(INDEX_WRITE_KINDS),
  );
}

/**
 * The entries due by `now`, and the index writes owed but not tried yet (those a run's start held for
 * its end): a run's end writes them all in one batch. Oldest first.
 */
export function heldIndexEntries(sql: SqlStorage, now: number): OutboxEntry[] {
  const ids = sql
    .exec<{ id: number }>(
      `SELECT id FROM outbox WHERE next_attempt_at <= ?
         OR (attempts = 0 AND kind IN (SELECT value FROM json_each(?))) ORDER BY id`,
      now,
      JSON.stringify(INDEX_WRITE_KINDS),
    )
    .toArray()
    .map((row) => row.id);
  return dueEntries(sql, now, ids);
}

/**
 * Takes the entries due by `now` for an inline pass until `until`: if the object is evicted in the
 * middle, the alarm (due_work) delivers them then. Entries waiting for a retry are not due: backoff holds
 * between attempts whoever makes them. The ids taken.
 */
export function leaseDueEntries(sql: SqlStorage, now: number, until: number, handoffsOnly = false): number[] {
  return sql
    .exec<{ id: number }>(
      `UPDATE outbox SET next_attempt_at = ? WHERE next_attempt_at <= ?
         AND (? = 0 OR kind NOT IN (SELECT value FROM json_each(?))) RETURNING id`,
      until,
      now,
      handoffsOnly ? 1 : 0,
      JSON.stringify(INDEX_WRITE_KINDS),
    )
    .toArray()
    .map((row) => row.id);
}

/** When the entry of this dedupe key is next due (undefined: there is none). */
export function entryDueAt(sql: SqlStorage, dedupeKey: string): number | undefined {
  return sql
    .exec<{ next_attempt_at: number }>("SELECT next_attempt_at FROM outbox WHERE dedupe_key = ?", dedupeKey)
    .toArray()[0]?.next_attempt_at;
}

/** True while an entry of this dedupe key waits in the outbox. */
export function hasOutboxEntry(sql: SqlStorage, dedupeKey: string): boolean {
  return sql.exec("SELECT 1 FROM outbox WHERE dedupe_key = ?", dedupeKey).toArray().length > 0;
}

/** True while an entry of this kind waits in the outbox (being delivered or not). */
export function hasOutboxKind(sql: SqlStorage, kind: OutboxKind): boolean {
  return sql.exec("SELECT 1 FROM outbox WHERE kind = ? LIMIT 1", kind).toArray().length > 0;
}

/**
 * True while the entry is still owed as it was read: another pass may have delivered it since, or tried
 * it and deferred it to its retry time (its attempts moved), which this pass must then respect.
 */
export function isPending(sql: SqlStorage, entry: OutboxEntry): boolean {
  return (
    sql
      .exec(
        "SELECT 1 FROM outbox WHERE id = ? AND payload = ? AND attempts = ?",
        entry.id,
        entry.raw,
        entry.attempts,
      )
      .toArray().length > 0
  );
}

/**
 * Removes a delivered entry, unless it was replaced by a newer one while it was being delivered; true
 * when it was removed.
 */
export function settleEntry(sql: SqlStorage, entry: OutboxEntry): boolean {
  return sql.exec("DELETE FROM outbox WHERE id = ? AND payload = ?", entry.id, entry.raw).rowsWritten > 0;
}

/** Records a failed attempt and when to try again (src/session/api/delivery-schedule.ts). */
export function deferEntry(sql: SqlStorage, entry: OutboxEntry, error: string, retryAt: number): void {
  sql.exec(
    "UPDATE outbox SET attempts = attempts + 1, next_attempt_at = ?, last_error = ? WHERE id = ? AND payload = ?",
    retryAt,
    error.slice(0, 500),
    entry.id,
    entry.raw,
  );
}

/** Empties the outbox (a new session replacing a deleted one's leftovers), but for the entries of `keep`. */
export function clearOutbox(sql: SqlStorage, keep?: OutboxKind): void {
  sql.exec("DELETE FROM outbox WHERE kind IS NOT ?", keep ?? null);
}

/** The entries of one kind waiting in the outbox (due or not), oldest first; unreadable ones are skipped. */
export function entriesOfKind<K extends OutboxKind>(
  sql: SqlStorage,
  kind: K,
): Extract<OutboxEntry, { kind: K }>[] {
  return sql
    .exec<EntryRow>(
      "SELECT id, kind, dedupe_key, payload, attempts, next_attempt_at FROM outbox WHERE kind = ? ORDER BY id",
      kind,
    )
    .toArray()
    .map(parseEntry)
    .filter((entry): entry is Extract<OutboxEntry, { kind: K }> => entry?.kind === kind);
}
