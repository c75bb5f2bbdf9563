import type { RunUsage } from "../runtimes/types";
import { fromColumns } from "../storage/columns";
import type { Provenance } from "../transcript/message";
import type { DeliveryContext } from "./meta";

export type RunStatus = "queued" | "running" | "ok" | "error" | "timeout" | "killed";
export const ENDED_STATUSES: ReadonlySet<RunStatus> = new Set(["ok", "error", "timeout", "killed"]);

/** What happens after a run of an agent-to-agent exchange ends (src/messaging/reply-flow.ts). */
export interface ReplyFlow {
  flowId: string;
  requesterKey: string;
  targetKey: string;
  originalMessage: string;
  maxTurns: number;
  stepTimeoutMs: number;
  hop: number;
  stage: "request" | "ping" | "announce";
  /** The ping turn this run answers (1-based); 0 for the request. */
  turn: number;
  round1Reply?: string;
  latestReply?: string;
}

/** A request to run a turn on a session: the inbound message and what to do afterwards. */
export interface TurnRequest {
  /** Chosen by the caller, so a redelivered request finds the same run. */
  runId: string;
  dedupeKey?: string;
  message: { id?: string; text: string; provenance: Provenance };
  /** Context of our own for the runtime (agent-to-agent roles, reply-step instructions). */
  context?: string;
  timeoutMs?: number;
  flow?: ReplyFlow;
  /** Where the run's reply is delivered (a channel's inbound message). */
  replyTo?: DeliveryContext;
  /** Deliver the reply to the session's own announce target (a completion); never for a sub-agent. */
  replyToOwnChannel?: boolean;
}

export interface RunRecord {
  runId: string;
  sessionKey: string;
  status: RunStatus;
  deferred: boolean;
  createdAt: number;
  startedAt?: number;
  endedAt?: number;
  usage?: RunUsage;
  reply?: string;
  error?: string;
  attempts: number;
  retries: string[];
}

/** The stored row with its JSON columns still as text; internal to the session object. */
export interface RunRow {
  seq: number;
  runId: string;
  dedupeKey?: string;
  status: RunStatus;
  deferred: number;
  triggerMessageId?: string;
  context?: string;
  flow?: string;
  replyTo?: string;
  timeoutMs: number;
  createdAt: number;
  startedAt?: number;
  endedAt?: number;
  deadlineAt?: number;
  attempts: number;
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  reply?: string;
  error?: string;
  retries?: string;
}

function readRows(sql: SqlStorage, where: string, ...params: unknown[]): RunRow[] {
  return sql
    .exec(`SELECT * FROM run WHERE ${where}`, ...params)
    .toArray()
    .map((row) => fromColumns<RunRow>(row));
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
  return readRows(sql, "status = 'queued' ORDER BY seq LIMIT 1")[0];
}

/** Runs marked running: after an eviction, those no longer executing anywhere. */
export function runningRuns(sql: SqlStorage): RunRow[] {
  return readRows(sql, "status = 'running' ORDER BY seq");
}

/** Runs waiting their turn, oldest first. */
export function queuedRuns(sql: SqlStorage): RunRow[] {
  return readRows(sql, "status = 'queued' ORDER BY seq");
}

/** Inserts a queued run, created at the same instant as its inbound message. */
export function insertRun(
  sql: SqlStorage,
  request: TurnRequest,
  triggerMessageId: string,
  timeoutMs: number,
  createdAt: number,
): void {
  sql.exec(
    `INSERT INTO run (run_id, dedupe_key, status, trigger_message_id, context, flow, reply_to, timeout_ms, created_at)
     VALUES (?, ?, 'queued', ?, ?, ?, ?, ?, ?)`,
    request.runId,
    request.dedupeKey ?? null,
    triggerMessageId,
    request.context ?? null,
    request.flow ? JSON.stringify(request.flow) : null,
    request.replyTo ? JSON.stringify(request.replyTo) : null,
    timeoutMs,
    createdAt,
  );
}

/** Marks a run started, with the deadline the alarm enforces if this instance is gone. */
export function markRunStarted(sql: SqlStorage, runId: string, now: number, deadlineAt: number): void {
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
  ending: { status: RunStatus; reply?: string; error?: string; usage?: RunUsage; endedAt: number },
): void {
  sql.exec(
    `UPDATE run SET status = ?, deferred = 0, ended_at = ?, reply = ?, error = ?,
       input_tokens = ?, output_tokens = ?, total_tokens = ? WHERE run_id = ?`,
    ending.status,
    ending.endedAt,
    ending.reply ?? null,
    ending.error ?? null,
    ending.usage?.input ?? null,
    ending.usage?.output ?? null,
    ending.usage?.total ?? null,
    runId,
  );
}

/**
 * When the alarm must next look at the runs in flight: a deferred run (waiting for its posted result) at
 * its deadline; a run executing a runtime call at once. Alarms never overlap, so the live instance's
 * handler just finishes first and re-arms; but if the instance dies mid-call, the next one recovers the
 * run straight away instead of leaving it `running` until its deadline (writes during the run re-arm too).
 */
export function earliestDeadline(sql: SqlStorage, now = Date.now()): number | undefined {
  const row = sql
    .exec<{ next: number | null }>(
      "SELECT MIN(CASE WHEN deferred = 1 THEN deadline_at ELSE MIN(deadline_at, ?) END) AS next FROM run WHERE status = 'running'",
      now,
    )
    .one();
  return row.next ?? undefined;
}

export function hasQueuedRuns(sql: SqlStorage): boolean {
  return sql.exec("SELECT 1 FROM run WHERE status = 'queued' LIMIT 1").toArray().length > 0;
}

/** The public view of a run. */
export function toRunRecord(row: RunRow, sessionKey: string): RunRecord {
  const usage =
    row.totalTokens !== undefined
      ? { input: row.inputTokens ?? 0, output: row.outputTokens ?? 0, total: row.totalTokens }
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
    ...(row.reply !== undefined ? { reply: row.reply } : {}),
    ...(row.error !== undefined ? { error: row.error } : {}),
    attempts: row.attempts,
    retries: row.retries ? (JSON.parse(row.retries) as string[]) : [],
  };
}
