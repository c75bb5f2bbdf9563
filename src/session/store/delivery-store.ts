import type { DeliveryKind, DeliveryStatus } from "../api/api-deliveries";
import { addToOutbox, type OutboxKind, type OutboxPayload } from "./outbox-store";
import { eraseQuotedJson } from "./quoted-text";

/**
 * The delivery ledger's table (SPEC §16; `delivery`), its rows and how a record is opened with the
 * outbox entry that carries it. What happens to a record next is in delivery-ledger.ts.
 */

export type DeliveryRow = {
  delivery_id: string;
  kind: DeliveryKind;
  run_id: string | null;
  target: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: number | null;
  first_attempt_at: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
  outbox_kind: OutboxKind;
  outbox_key: string;
  payload: string | null;
  /** The parts of a split platform post delivered so far (migration 0023). */
  parts_sent: number;
};

/** What a new record says besides its kind: whose run it is for, and whom it is for. */
export interface DeliveryAbout {
  runId?: string;
  target: string;
}

/** The statuses an attempt may still change; the others are settled. */
export const OPEN = "('pending', 'in_progress')";
/** Owes the D1 delivery index this record's current state (or its removal, once it is gone). */
export function owesIndex(sql: SqlStorage, deliveryId: string): void {
  // A fresh `change` each time: an entry owed again while a pass is writing the older state is not
  // settled by that pass (settling compares payloads), so the newer state is written too.
  addToOutbox(sql, "delivery_index", `dindex:${deliveryId}`, { deliveryId, change: crypto.randomUUID() });
}

/** Empties the ledger (a new session replacing a deleted one's leftovers); the index is owed each removal. */
export function clearDeliveries(sql: SqlStorage): void {
  const gone = sql.exec<{ delivery_id: string }>("DELETE FROM delivery RETURNING delivery_id").toArray();
  for (const { delivery_id } of gone) owesIndex(sql, delivery_id);
}

/**
 * Drops the kept payload (the text) of the records of these runs not waiting in the outbox (SPEC §23
 * erasure): a retry of one is then refused, as of any record without a payload. Answers how many.
 */
export function erasePayloads(sql: SqlStorage, runIds: readonly string[]): number {
  if (runIds.length === 0) return 0;
  const marks = runIds.map(() => "?").join(", ");
  return sql
    .exec(
      `UPDATE delivery SET payload = NULL WHERE payload IS NOT NULL AND status <> 'pending' AND run_id IN (${marks}) RETURNING delivery_id`,
      ...runIds,
    )
    .toArray().length;
}

/**
 * Erasure: the kept payloads (a pending record's retry copy) quoting an erased text carry the marker
 * instead. Answers the records rewritten.
 */
export function eraseDeliveryQuotes(sql: SqlStorage, texts: readonly string[], marker: string): number {
  return eraseQuotedJson(sql, { table: "delivery", id: "delivery_id", column: "payload" }, texts, marker);
}

/** Updates records, returning them as they are now. Number the parameters (`?1` is the WHERE's). */
export function updateDeliveries(
  sql: SqlStorage,
  where: string,
  set: string,
  ...params: unknown[]
): DeliveryRow[] {
  return sql.exec<DeliveryRow>(`UPDATE delivery SET ${set} WHERE ${where} RETURNING *`, ...params).toArray();
}

/**
 * Owes a handoff (call in the transaction of the change that owes it): the outbox entry that carries
 * it and its record. An entry that replaces one still owed (the same outbox key) keeps that record.
 */
export function addDelivery<K extends OutboxKind>(
  sql: SqlStorage,
  kind: DeliveryKind,
  about: DeliveryAbout,
  entry: { kind: K; key: string; payload: OutboxPayload<K> },
  now = Date.now(),
): string {
  addToOutbox(sql, entry.kind, entry.key, entry.payload, now);
  const payload = JSON.stringify(entry.payload);
  const [open] = updateDeliveries(
    sql,
    `outbox_key = ?1 AND status IN ${OPEN}`,
    "payload = ?2, updated_at = ?3",
    entry.key,
    payload,
    now,
  );
  if (open) return open.delivery_id;
  const deliveryId = `dlv_${crypto.randomUUID()}`;
  sql.exec(
    `INSERT INTO delivery (delivery_id, kind, run_id, target, status, next_attempt_at, created_at, updated_at,
       outbox_kind, outbox_key, payload) VALUES (?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?)`,
    deliveryId,
    kind,
    about.runId ?? null,
    about.target,
    now,
    now,
    now,
    entry.kind,
    entry.key,
    payload,
  );
  owesIndex(sql, deliveryId);
  return deliveryId;
}

/** The id of the open record an outbox entry carries, if any. */
export function deliveryIdOf(sql: SqlStorage, outboxKey: string): string | undefined {
  return sql
    .exec<{ delivery_id: string }>(
      `SELECT delivery_id FROM delivery WHERE outbox_key = ? AND status IN ${OPEN}`,
      outboxKey,
    )
    .toArray()[0]?.delivery_id;
}

/** Whether an outbox entry ever opened a record, whatever became of it (delivered, failed or open). */
export function hasDeliveryRecord(sql: SqlStorage, outboxKey: string): boolean {
  return sql.exec("SELECT 1 FROM delivery WHERE outbox_key = ?", outboxKey).toArray().length > 0;
}

/**
 * Whether another run's post to `target` (a ledger address) is still owed: a chat's replies keep the
 * order of its messages (SPEC §21), so a live draft waits while an earlier reply is on its way.
 */
export function owesEarlierPost(sql: SqlStorage, target: string, runId: string): boolean {
  return (
    sql
      .exec(
        `SELECT 1 FROM delivery WHERE target = ? AND status IN ${OPEN} AND run_id IS NOT ? LIMIT 1`,
        target,
        runId,
      )
      .toArray().length > 0
  );
}
