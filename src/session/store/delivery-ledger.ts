import {
  type DeliveryKind,
  type DeliveryRecord,
  type DeliveryStatus,
  ledgerError,
} from "../api/api-deliveries";
import { DELIVERY_KEEP_MS, nextAttemptAt } from "../api/delivery-schedule";
import { readRecord } from "../record/record";
import { type DeliveryAbout, type DeliveryRow, OPEN, owesIndex, updateDeliveries } from "./delivery-store";
import { appendEvent, systemEvent } from "./event-log";
import { setRunCompletion } from "./run-store";

/**
 * The delivery ledger (SPEC §16; table `delivery`): a record per handoff this session owes, written
 * with the outbox entry that carries it, moved along by the outbox (and, for channel posts, by the
 * Queue's consumer), and kept 7 days once settled. Every change owes the D1 delivery index the record
 * (outbox `delivery_index`); a failure, a suspension, a dismissal and an operator's retry are also a
 * `delivery` event (§13).
 */

export function toRecord(row: DeliveryRow, sessionKey: string): DeliveryRecord {
  return {
    deliveryId: row.delivery_id,
    kind: row.kind,
    ...(row.run_id !== null ? { runId: row.run_id } : {}),
    sessionKey,
    target: row.target,
    status: row.status,
    attempts: row.attempts,
    ...(row.next_attempt_at !== null && (row.status === "pending" || row.status === "in_progress")
      ? { nextAttemptAt: row.next_attempt_at }
      : {}),
    ...(row.last_error !== null ? { lastError: row.last_error } : {}),
    ...(row.parts_sent > 0 ? { partsSent: row.parts_sent } : {}),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * The statuses that are an event of the session (SPEC §13 `delivery`): those someone must look at or
 * that someone chose. A routine `delivered` or `not_required` is in the ledger only: an event for each
 * would double every session's log (and every watched session's version) for nothing to act on.
 */
const EVENTFUL: readonly DeliveryStatus[] = ["failed", "suspended", "dismissed"];

/**
 * Owes the index the record's state; an eventful status, or an operator's retry, is also an event. A
 * completion's settled status is also kept on its run, where `deliveryStatus` finds it once the record
 * is pruned.
 */
export function logged(sql: SqlStorage, row: DeliveryRow, now: number, retried = false): void {
  owesIndex(sql, row.delivery_id);
  if (row.kind === "completion" && row.run_id !== null)
    setRunCompletion(
      sql,
      row.run_id,
      row.status === "pending" || row.status === "in_progress" ? "owed" : row.status,
    );
  if (!retried && !EVENTFUL.includes(row.status)) return;
  const why = row.status === "failed" || row.status === "suspended" ? `: ${row.last_error ?? ""}` : "";
  appendEvent(
    sql,
    systemEvent("delivery", `${row.kind} to ${row.target} ${row.status}${why}`.slice(0, 300), {
      ...(row.run_id !== null ? { runId: row.run_id } : {}),
      data: { deliveryId: row.delivery_id, status: row.status },
    }),
    now,
  );
}

/** Records a handoff that is owed to nobody (a `NO_REPLY` answer, a post the send policy denies). */
export function addNotRequired(
  sql: SqlStorage,
  kind: DeliveryKind,
  about: DeliveryAbout,
  reason: string,
  now = Date.now(),
): void {
  const deliveryId = `dlv_${crypto.randomUUID()}`;
  const [row] = sql
    .exec<DeliveryRow>(
      `INSERT INTO delivery (delivery_id, kind, run_id, target, status, last_error, created_at, updated_at,
         outbox_kind, outbox_key) VALUES (?, ?, ?, ?, 'not_required', ?, ?, ?, '', '') RETURNING *`,
      deliveryId,
      kind,
      about.runId ?? null,
      about.target,
      reason,
      now,
      now,
    )
    .toArray();
  if (row) logged(sql, row, now);
}

/** The outbox delivered the entry (or the Queue's consumer the post): its record is delivered. */
export function markDelivered(sql: SqlStorage, where: Lookup, now = Date.now()): void {
  for (const row of updateDeliveries(
    sql,
    `${where.column} = ?1 AND status IN ${OPEN}`,
    `status = 'delivered', attempts = attempts + 1, first_attempt_at = COALESCE(first_attempt_at, ?2),
     next_attempt_at = NULL, payload = NULL, updated_at = ?2`,
    where.value,
    now,
  ))
    logged(sql, row, now);
}

/** The entry was handed to the Queue: its consumer makes the attempts and reports them. */
export function markHandedOff(sql: SqlStorage, outboxKey: string, now = Date.now()): void {
  for (const row of updateDeliveries(
    sql,
    `outbox_key = ?1 AND status = 'pending'`,
    "status = 'in_progress', first_attempt_at = COALESCE(first_attempt_at, ?2), updated_at = ?2",
    outboxKey,
    now,
  ))
    logged(sql, row, now);
}

/** Which record: the one of an outbox entry, or one by its id (the Queue's reports). */
export type Lookup = { column: "outbox_key" | "delivery_id"; value: string };
export const byOutboxKey = (key: string): Lookup => ({ column: "outbox_key", value: key });
export const byId = (deliveryId: string): Lookup => ({ column: "delivery_id", value: deliveryId });

/**
 * A failed attempt: when to try again by the schedule, or `suspended` once the deadline has passed.
 * Undefined when no open record goes with it (an entry the ledger does not track).
 */
export function attemptFailed(
  sql: SqlStorage,
  where: Lookup,
  error: string,
  now = Date.now(),
  notBefore?: number,
): { retryAt: number } | { suspended: true } | undefined {
  const [row] = sql
    .exec<DeliveryRow>(`SELECT * FROM delivery WHERE ${where.column} = ? AND status IN ${OPEN}`, where.value)
    .toArray();
  if (!row) return undefined;
  const failed = row.attempts + 1;
  const retryAt = nextAttemptAt(failed, row.first_attempt_at ?? now, now, notBefore);
  const [changed] = updateDeliveries(
    sql,
    "delivery_id = ?1",
    `attempts = ?2, first_attempt_at = COALESCE(first_attempt_at, ?3), last_error = ?4, updated_at = ?3,
     next_attempt_at = ?5, status = CASE WHEN ?5 IS NULL THEN 'suspended' ELSE status END`,
    row.delivery_id,
    failed,
    now,
    ledgerError(error),
    retryAt ?? null,
  );
  if (changed) logged(sql, changed, now);
  return retryAt === undefined ? { suspended: true } : { retryAt };
}

/** A split post's parts that are out: never fewer than an earlier attempt counted (reports may cross). */
export function notePartsSent(sql: SqlStorage, where: Lookup, partsSent: number): void {
  sql.exec(
    `UPDATE delivery SET parts_sent = MAX(parts_sent, ?) WHERE ${where.column} = ?`,
    partsSent,
    where.value,
  );
}

/** An attempt that can never succeed (a channel's 4xx, no webhookUrl, nobody left to take it). */
export function markFailed(sql: SqlStorage, where: Lookup, reason: string, now = Date.now()): void {
  settle(sql, where, "failed", reason, now);
}

/** Nobody needs it any more (a watcher archived meanwhile). */
export function markNotRequired(sql: SqlStorage, where: Lookup, reason: string, now = Date.now()): void {
  settle(sql, where, "not_required", reason, now);
}

/** The dead-letter queue's consumer: the Queue gave up on the post, so the record waits for an operator. */
export function markSuspended(sql: SqlStorage, where: Lookup, reason: string, now = Date.now()): void {
  settle(sql, where, "suspended", reason, now);
}

function settle(sql: SqlStorage, where: Lookup, status: DeliveryStatus, reason: string, now: number): void {
  for (const row of updateDeliveries(
    sql,
    `${where.column} = ?1 AND status IN ${OPEN}`,
    "status = ?2, attempts = attempts + 1, last_error = ?3, next_attempt_at = NULL, updated_at = ?4",
    where.value,
    status,
    ledgerError(reason),
    now,
  ))
    logged(sql, row, now);
}

export function findDeliveryRow(sql: SqlStorage, deliveryId: string): DeliveryRow | undefined {
  return sql.exec<DeliveryRow>("SELECT * FROM delivery WHERE delivery_id = ?", deliveryId).toArray()[0];
}

/** One record, as callers see it. */
export function readDelivery(sql: SqlStorage, deliveryId: string): DeliveryRecord | undefined {
  const row = findDeliveryRow(sql, deliveryId);
  const sessionKey = readRecord(sql)?.sessionKey;
  return row && sessionKey ? toRecord(row, sessionKey) : undefined;
}

/** The record for the D1 index: the caller's view plus the agent it belongs to. */
export function indexedDelivery(sql: SqlStorage, deliveryId: string) {
  const record = readRecord(sql);
  const row = findDeliveryRow(sql, deliveryId);
  return record && row ? { ...toRecord(row, record.sessionKey), agentId: record.agentId } : undefined;
}

/** The status of a run's completion, if the ledger has one. */
export function completionStatus(sql: SqlStorage, runId: string): DeliveryStatus | undefined {
  return sql
    .exec<{ status: DeliveryStatus }>(
      "SELECT status FROM delivery WHERE run_id = ? AND kind = 'completion' ORDER BY created_at DESC LIMIT 1",
      runId,
    )
    .toArray()[0]?.status;
}

/** Drops records settled more than 7 days ago, payload and all; the index is owed their removal. */
export function pruneDeliveries(sql: SqlStorage, now = Date.now()): void {
  const gone = sql
    .exec<{ delivery_id: string }>(
      `DELETE FROM delivery WHERE updated_at < ? AND status NOT IN ${OPEN} RETURNING delivery_id`,
      now - DELIVERY_KEEP_MS,
    )
    .toArray();
  for (const { delivery_id } of gone) owesIndex(sql, delivery_id);
}
