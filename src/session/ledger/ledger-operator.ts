import { type DeliveryRecord, DISMISSABLE_STATUSES, RETRYABLE_STATUSES } from "../api/api-deliveries";
import { readRecord } from "../record/record";
import { findDeliveryRow, logged, toRecord } from "../store/delivery-ledger";
import type { DeliveryRow } from "../store/delivery-store";
import { updateDeliveries } from "../store/delivery-store";
import { addToOutbox, entryDueAt, removeFromOutbox } from "../store/outbox-store";

// The operator's actions on the ledger (SPEC §16 `POST /v1/deliveries/{id}/retry|dismiss`).

/**
 * A post on the Queue reports each attempt (at most ~6 minutes apart by the schedule). One that has not
 * reported for this long was lost with the Queue's message: an operator may retry or dismiss it.
 */
const SILENT_QUEUE_MS = 15 * 60_000;
const lostOnQueue = (row: DeliveryRow, now: number) =>
  row.status === "in_progress" && now - row.updated_at > SILENT_QUEUE_MS;

/** Why an operator action cannot be taken, or the record after it. */
export type OperatorAnswer = { ok: true; record: DeliveryRecord } | { ok: false; why: string } | undefined;

/**
 * `POST …/retry`: a new attempt series from the kept payload, through the same outbox key, so the
 * receiver's deduplication still holds (a retry after an ambiguous failure never doubles a message).
 */
export function retryDelivery(sql: SqlStorage, deliveryId: string, now = Date.now()): OperatorAnswer {
  const row = findDeliveryRow(sql, deliveryId);
  if (!row) return undefined;
  if (!(RETRYABLE_STATUSES.includes(row.status) || lostOnQueue(row, now)) || row.payload === null)
    return {
      ok: false,
      why: `delivery ${deliveryId} is ${row.status}: only a suspended, failed or dismissed one (or one silent on the Queue for 15 minutes) can be retried`,
    };
  addToOutbox(sql, row.outbox_kind, row.outbox_key, JSON.parse(row.payload), now);
  const [changed] = updateDeliveries(
    sql,
    "delivery_id = ?1",
    "status = 'pending', attempts = 0, first_attempt_at = NULL, next_attempt_at = ?2, updated_at = ?2",
    deliveryId,
    now,
  );
  if (changed) logged(sql, changed, now, true);
  return changed && { ok: true, record: toRecord(changed, readRecord(sql)?.sessionKey ?? "") };
}

/**
 * A pending record's entry taken by a pass (leased a few seconds ahead, unlike a retry's time, which the
 * record shares): dismissing it now could leave `dismissed` a handoff that arrives.
 */
function beingDelivered(sql: SqlStorage, row: DeliveryRow, now: number): boolean {
  const due = entryDueAt(sql, row.outbox_key);
  return due !== undefined && due > now && due !== row.next_attempt_at;
}

/** `POST …/dismiss`: stays undelivered, on purpose; a pending one's outbox entry goes. */
export function dismissDelivery(sql: SqlStorage, deliveryId: string, now = Date.now()): OperatorAnswer {
  const row = findDeliveryRow(sql, deliveryId);
  if (!row) return undefined;
  if (!(DISMISSABLE_STATUSES.includes(row.status) || lostOnQueue(row, now)))
    return {
      ok: false,
      why: `delivery ${deliveryId} is ${row.status}: only a pending, failed or suspended one (or one silent on the Queue for 15 minutes) can be dismissed`,
    };
  if (row.status === "pending") {
    if (beingDelivered(sql, row, now))
      return {
        ok: false,
        why: `delivery ${deliveryId} is being delivered right now; look again in a few seconds`,
      };
    removeFromOutbox(sql, row.outbox_key);
  }
  const [changed] = updateDeliveries(
    sql,
    "delivery_id = ?1",
    "status = 'dismissed', next_attempt_at = NULL, updated_at = ?2",
    deliveryId,
    now,
  );
  if (changed) logged(sql, changed, now);
  return changed && { ok: true, record: toRecord(changed, readRecord(sql)?.sessionKey ?? "") };
}
