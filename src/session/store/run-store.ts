import { z } from "zod";
import type { RunUsage } from "../../runtimes/types";
import { fromColumns } from "../../storage/columns";
import type { TranscriptMessage } from "../../transcript/message";
import {
  type DeliveryStatus,
  ENDED_STATUSES,
  type ReplyFlow,
  type RunRecord,
  type RunStatus,
  type RunWebhook,
  replyFlowSchema,
  runWebhookSchema,
  type TurnRequest,
} from "../api";
import { type ReplyTarget, replyTargetSchema } from "../record/record";
import { appendEvent, type NewEvent, systemEvent } from "./event-log";
import { safeReplyText } from "./run-stream";

/** A stored run (table `run`), its JSON columns parsed; internal to the session object. */
export interface RunRow {
  seq: number;
  runId: string;
  dedupeKey?: string;
  status: RunStatus;
  deferred: number;
  triggerMessageId?: string;
  context?: string;
  flow?: ReplyFlow;
  replyTo?: ReplyTarget;
  /** Where its outcome is POSTed when it ends (migration 0028). */
  webhook?: RunWebhook;
  timeoutMs: number;
  createdAt: number;
  startedAt?: number;
  endedAt?: number;
  deadlineAt?: number;
  attempts: number;
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  estimatedCostUsd?: number;
  /** The model and provider that answered (migration 0023). */
  model?: string;
  provider?: string;
  reply?: string;
  error?: string;
  retries: string[];
  notBefore?: number;
  /** 1 while the run is held: queued, not runnable until released (a collector waiting for a slot). */
  held?: number | null;
  /** Whether the run's end owed its requester a completion (migration 0008). */
  /**
   * Whether the run's end owed its requester a completion (migration 0008), and once its ledger record
   * settled, that record's status, which outlives the record (pruned after 7 days).
   */
  completion?: RunCompletion;
}

/** How a run ends, as its end is recorded (writes/run-ending.ts). */
export interface RunEnding {
  status: Exclude<RunStatus, "queued" | "running">;
  /** False for a run a steer replaced: the new run reports instead. */
  announce?: boolean;
  reply?: string;
  error?: string;
  usage?: RunUsage;
  /** The model and provider that answered, when one did. */
  model?: string;
  provider?: string;
  messages: TranscriptMessage[];
  /** A collector run's recorded structured_output result (SPEC §15). */
  structured?: unknown;
  /** Why a collector run with an outputSchema has no valid result. */
  schemaError?: string;
}

const retriesSchema = z.array(z.string());

/** A JSON column, parsed with its schema; a column that does not parse is read as absent and reported. */
function parseColumn<T>(schema: z.ZodType<T>, text: unknown, what: string): T | undefined {
  if (typeof text !== "string" || text === "") return undefined;
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    if (parsed.success) return parsed.data;
  } catch {
    // reported below
  }
  console.error(`session run store: ${what} does not parse; read as absent`);
  return undefined;
}

function readRows(sql: SqlStorage, where: string, ...params: unknown[]): RunRow[] {
  return sql
    .exec(`SELECT * FROM run WHERE ${where}`, ...params)
    .toArray()
    .map((row) => {
      const { flow, replyTo, retries, webhook, ...columns } = fromColumns<Record<string, unknown>>(row);
      const runId = String(columns.runId);
      const parsedFlow = parseColumn(replyFlowSchema, flow, `run ${runId} flow`);
      const parsedReplyTo = parseColumn(replyTargetSchema, replyTo, `run ${runId} reply_to`);
      const parsedWebhook = parseColumn(runWebhookSchema, webhook, `run ${runId} webhook`);
      return {
        ...(columns as Omit<RunRow, "flow" | "replyTo" | "retries" | "webhook">),
        ...(parsedWebhook ? { webhook: parsedWebhook } : {}),
        ...(parsedFlow ? { flow: parsedFlow } : {}),
        ...(parsedReplyTo ? { replyTo: parsedReplyTo } : {}),
        retries: parseColumn(retriesSchema, retries, `run ${runId} retries`) ?? [],
      };
    });
}

/** The run with this id, or one recorded under the same idempotency key. */
export function findRun(sql: SqlStorage, runId: string, dedupeKey?: string): RunRow | undefined {
  return dedupeKey
    ? readRows(sql, "run_id = ? OR dedupe_key = ? LIMIT 1", runId, dedupeKey)[0]
    : readRows(sql, "run_id = ?", runId)[0];
}

/** The oldest queued run, if the session is not busy with another. */
export function nextRunnable(sql: SqlStorage): RunRow | undefined {
  if (readRows(sql, "status = 'running' LIMIT 1").length > 0) return undefined;
  const [next] = readRows(sql, "status = 'queued' ORDER BY seq LIMIT 1");
  // A held run (a collector waiting for a slot of its group) holds up the queue behind it too.
  return next && !next.held ? next : undefined;
}

/** Runs marked running: after an eviction, those no longer executing anywhere. */
export function runningRuns(sql: SqlStorage): RunRow[] {
  return readRows(sql, "status = 'running' ORDER BY seq");
}

/** Runs waiting their turn, oldest first. */
export function queuedRuns(sql: SqlStorage): RunRow[] {
  return readRows(sql, "status = 'queued' ORDER BY seq");
}

/** Runs without a timeout of their own still end: a runtime that never answers cannot hold a session. */
export const DEFAULT_RUN_TIMEOUT_MS = 10 * 60 * 1000;

/** Whether an ended run owed its requester a completion (`failed`: nobody was left to take it). */
export type RunCompletion = "owed" | "none" | Exclude<DeliveryStatus, "pending" | "in_progress">;

export function setRunCompletion(sql: SqlStorage, runId: string, completion: RunCompletion): void {
  sql.exec("UPDATE run SET completion = ? WHERE run_id = ?", completion, runId);
}

/** The session's latest run, or its latest after the run numbered `afterSeq`. */
export function latestRun(sql: SqlStorage, afterSeq = 0): RunRow | undefined {
  return readRows(sql, "seq > ? ORDER BY seq DESC LIMIT 1", afterSeq)[0];
}

/** The session's newest runs, newest first, at most `limit`. */
export function recentRuns(sql: SqlStorage, limit: number): RunRow[] {
  return readRows(sql, "1 ORDER BY seq DESC LIMIT ?", limit);
}

/** The run just before the run numbered `seq`. */
export function previousRun(sql: SqlStorage, seq: number): RunRow | undefined {
  return readRows(sql, "seq < ? ORDER BY seq DESC LIMIT 1", seq)[0];
}

/** The run just after the run numbered `seq`. */
export function nextRun(sql: SqlStorage, seq: number): RunRow | undefined {
  return readRows(sql, "seq > ? ORDER BY seq LIMIT 1", seq)[0];
}

/** How a run's end reads as a status (the session's, a sub-agent's, a collector's): `ok` is `done`. */
export const STATUS_OF_ENDING = {
  ok: "done",
  error: "failed",
  timeout: "timeout",
  killed: "killed",
} as const;

/** The error of a run a steer replaced (the new run carries its work on). */
export const RESTARTED_BY_STEER = "run restarted by steer";

/** True if a run was recorded under this idempotency key (a completion taken: its turn's dedupe key). */
export function hasRunWithDedupeKey(sql: SqlStorage, dedupeKey: string): boolean {
  return sql.exec("SELECT 1 FROM run WHERE dedupe_key = ? LIMIT 1", dedupeKey).toArray().length > 0;
}

/** Inserts a queued run, created at the same instant as its inbound message. */
export function insertRun(
  sql: SqlStorage,
  request: Pick<TurnRequest, "runId" | "dedupeKey" | "context" | "flow" | "replyTo" | "held" | "webhook">,
  triggerMessageId: string,
  timeoutMs: number,
  createdAt: number,
): void {
  appendEvent(sql, systemEvent("run_queued", "run queued", { runId: request.runId }), createdAt);
  sql.exec(
    `INSERT INTO run (run_id, dedupe_key, status, trigger_message_id, context, flow, reply_to, timeout_ms, created_at,
       held, webhook) VALUES (?, ?, 'queued', ?, ?, ?, ?, ?, ?, ?, ?)`,
    request.runId,
    request.dedupeKey ?? null,
    triggerMessageId,
    request.context ?? null,
    request.flow ? JSON.stringify(request.flow) : null,
    request.replyTo ? JSON.stringify(request.replyTo) : null,
    timeoutMs,
    createdAt,
    request.held ? 1 : null,
    request.webhook ? JSON.stringify(request.webhook) : null,
  );
}

/** Makes a held run runnable (its requester released it); true when it was held (and not ended since). */
export function releaseHeldRun(sql: SqlStorage, runId: string): boolean {
  return (
    sql.exec("UPDATE run SET held = NULL WHERE run_id = ? AND held = 1 AND status = 'queued'", runId)
      .rowsWritten > 0
  );
}

/** Marks a run started, with the deadline the alarm enforces if this instance is gone. */
export function markRunStarted(sql: SqlStorage, runId: string, now: number, deadlineAt: number): void {
  // A resumed or retried run starts again, but it started once.
  if (findRun(sql, runId)?.startedAt === undefined)
    appendEvent(sql, systemEvent("run_started", "run started", { runId }), now);
  sql.exec(
    "UPDATE run SET status = 'running', started_at = COALESCE(started_at, ?), deadline_at = ?, attempts = attempts + 1 WHERE run_id = ?",
    now,
    deadlineAt,
    runId,
  );
}

export function markRunDeferred(sql: SqlStorage, runId: string): void {
  sql.exec("UPDATE run SET deferred = 1 WHERE run_id = ?", runId);
}

/** Puts an interrupted run back in the queue, keeping its place. */
export function requeueRun(sql: SqlStorage, runId: string, note: string): void {
  sql.exec(
    "UPDATE run SET status = 'queued', deferred = 0, retries = json_insert(COALESCE(retries, '[]'), '$[#]', ?) WHERE run_id = ?",
    note,
    runId,
  );
}

export function recordRetry(sql: SqlStorage, runId: string, note: string): void {
  sql.exec(
    "UPDATE run SET retries = json_insert(COALESCE(retries, '[]'), '$[#]', ?) WHERE run_id = ?",
    note,
    runId,
  );
}

/** Records how a run ended. */
export function markRunEnded(
  sql: SqlStorage,
  runId: string,
  ending: Pick<RunEnding, "reply" | "error" | "usage" | "model" | "provider"> & {
    status: RunStatus;
    endedAt: number;
  },
): void {
  const current = findRun(sql, runId);
  if (current && !ENDED_STATUSES.has(current.status))
    appendEvent(sql, runEndEvent(runId, ending), ending.endedAt);
  sql.exec(
    `UPDATE run SET status = ?, deferred = 0, ended_at = ?, reply = ?, error = ?,
       input_tokens = ?, output_tokens = ?, total_tokens = ?, cache_read_tokens = ?, cache_write_tokens = ?,
       estimated_cost_usd = ?, model = ?, provider = ? WHERE run_id = ?`,
    ending.status,
    ending.endedAt,
    ending.reply ?? null,
    ending.error ?? null,
    ending.usage?.input ?? null,
    ending.usage?.output ?? null,
    ending.usage?.total ?? null,
    ending.usage?.cacheRead ?? null,
    ending.usage?.cacheWrite ?? null,
    ending.usage?.estimatedCostUsd ?? null,
    ending.model ?? null,
    ending.provider ?? null,
    runId,
  );
}

/** A run's end as an event: `run_completed`, or `run_failed` with its outcome; the reply rides on the run stream. */
function runEndEvent(runId: string, ending: { status: RunStatus; reply?: string; error?: string }): NewEvent {
  if (ending.status === "ok")
    return systemEvent("run_completed", "run completed", {
      runId,
      streamData: { status: "ok", reply: safeReplyText(ending.reply ?? "") },
    });
  return systemEvent("run_failed", `run ${ending.status === "error" ? "failed" : ending.status}`, {
    runId,
    data: { outcome: ending.status },
    ...(ending.error ? { streamData: { error: safeReplyText(ending.error) } } : {}),
  });
}

export function hasQueuedRuns(sql: SqlStorage): boolean {
  return sql.exec("SELECT 1 FROM run WHERE status = 'queued' LIMIT 1").toArray().length > 0;
}

/** True once the session has had any run. */
export function hasAnyRun(sql: SqlStorage): boolean {
  return sql.exec("SELECT 1 FROM run LIMIT 1").toArray().length > 0;
}

/** A queued run waiting for a concurrency slot is not tried again before `at` (due_work). */
export function deferRunStart(sql: SqlStorage, runId: string, at: number): void {
  sql.exec("UPDATE run SET not_before = ? WHERE run_id = ?", at, runId);
}

/** Empties the run table (a new session replacing a deleted one's leftovers). */
export function clearRuns(sql: SqlStorage): void {
  sql.exec("DELETE FROM run");
}

/**
 * The public view of a run. Its reply is the safe view its stream ends with (reasoning gone, secrets
 * masked); the raw text stays in the row for the exchange's next step. Its error was masked when recorded.
 */
export function toRunRecord(row: RunRow, sessionKey: string): RunRecord {
  // Unknown stays absent: cache tokens and cost only where the provider reported them and pricing is set.
  const usage =
    row.totalTokens !== undefined
      ? {
          input: row.inputTokens ?? 0,
          output: row.outputTokens ?? 0,
          total: row.totalTokens,
          ...(row.cacheReadTokens !== undefined ? { cacheRead: row.cacheReadTokens } : {}),
          ...(row.cacheWriteTokens !== undefined ? { cacheWrite: row.cacheWriteTokens } : {}),
          ...(row.estimatedCostUsd !== undefined ? { estimatedCostUsd: row.estimatedCostUsd } : {}),
        }
      : undefined;
  return {
    runId: row.runId,
    sessionKey,
    status: row.status,
    deferred: row.deferred === 1,
    createdAt: row.createdAt,
    ...(row.startedAt !== undefined ? { startedAt: row.startedAt } : {}),
    ...(row.endedAt !== undefined ? { endedAt: row.endedAt } : {}),
    ...(usage ? { usage } : {}),
    ...(row.model !== undefined ? { model: row.model } : {}),
    ...(row.provider !== undefined ? { provider: row.provider } : {}),
    ...(row.reply !== undefined ? { reply: safeReplyText(row.reply) } : {}),
    ...(row.error !== undefined ? { error: row.error } : {}),
    attempts: row.attempts,
    retries: row.retries,
  };
}

/** The sessions of the agent-to-agent exchanges this session's runs were steps of. */
export function flowPartners(sql: SqlStorage): string[] {
  return sql
    .exec<{ key: string }>(
      `SELECT json_extract(flow, '$.requesterKey') AS key FROM run WHERE flow IS NOT NULL
       UNION SELECT json_extract(flow, '$.targetKey') FROM run WHERE flow IS NOT NULL`,
    )
    .toArray()
    .map((row) => row.key)
    .filter((key): key is string => typeof key === "string");
}

/**
 * Erasure: an exchange with an erased session keeps its shape, not its text (the original request and
 * the replies it quotes, which a later announce step would repeat). Answers the runs changed.
 */
export function eraseFlowTexts(sql: SqlStorage, keys: readonly string[], erased: string): number {
  return sql.exec(
    // json_replace changes only the fields there: an absent optional reply stays absent.
    `UPDATE run SET flow = json_replace(flow, '$.originalMessage', ?, '$.round1Reply', ?, '$.latestReply', ?)
     WHERE flow IS NOT NULL AND json_extract(flow, '$.originalMessage') IS NOT ?
       AND (json_extract(flow, '$.requesterKey') IN (SELECT value FROM json_each(?))
         OR json_extract(flow, '$.targetKey') IN (SELECT value FROM json_each(?)))`,
    erased,
    erased,
    erased,
    erased,
    JSON.stringify(keys),
    JSON.stringify(keys),
  ).rowsWritten;
}

/** The runs these messages started (erasure: what answered an erased message). */
export function runsTriggeredBy(sql: SqlStorage, messageIds: readonly string[]): string[] {
  if (messageIds.length === 0) return [];
  return sql
    .exec<{ run_id: string }>(
      "SELECT run_id FROM run WHERE trigger_message_id IN (SELECT value FROM json_each(?))",
      JSON.stringify(messageIds),
    )
    .toArray()
    .map((row) => row.run_id);
}

/** Erasure: these runs' replies (an answer to an erased message, which may quote it) are erased. */
export function eraseRunReplies(sql: SqlStorage, runIds: readonly string[], erased: string): number {
  return sql.exec(
    `UPDATE run SET reply = ? WHERE reply IS NOT NULL AND reply IS NOT ?
       AND run_id IN (SELECT value FROM json_each(?))`,
    erased,
    erased,
    JSON.stringify(runIds),
  ).rowsWritten;
}
