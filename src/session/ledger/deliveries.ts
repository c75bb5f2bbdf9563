import { notFound, type Result } from "../api";
import type { DeliveryRecord, DeliveryReport, DeliveryReportAnswer } from "../api/api-deliveries";
import type { Outbox } from "../outbox/outbox";
import { liveRecord } from "../record/record";
import {
  attemptFailed,
  byId,
  markDelivered,
  markFailed,
  markSuspended,
  notePartsSent,
  readDelivery,
} from "../store/delivery-ledger";
import { dismissDelivery, type OperatorAnswer, retryDelivery } from "./ledger-operator";

const unknownDelivery = (deliveryId: string): Result<never> => ({
  ok: false,
  code: "not_found",
  message: `delivery ${deliveryId} not found`,
});

/**
 * The ledger's face (SPEC §16): what the Queue's consumers report of a channel post's attempts, and the
 * operator's reads and actions. A part of the session object; it writes in one transaction and delivers
 * what it owes through the outbox (`Outbox.flush`).
 */
export class Deliveries {
  readonly #storage: DurableObjectStorage;
  readonly #sql: SqlStorage;
  readonly #outbox: Outbox;

  constructor(storage: DurableObjectStorage, outbox: Outbox) {
    this.#storage = storage;
    this.#sql = storage.sql;
    this.#outbox = outbox;
  }

  read(deliveryId: string): Result<DeliveryRecord> {
    if (!liveRecord(this.#sql)) return notFound();
    const record = readDelivery(this.#sql, deliveryId);
    return record ? { ok: true, value: record } : unknownDelivery(deliveryId);
  }

  /**
   * One attempt of the Queue's consumer. A transient failure answers when to try again by the one
   * schedule, or that the record is suspended (deadline passed): the consumer then stops retrying.
   */
  async report(deliveryId: string, report: DeliveryReport): Promise<Result<DeliveryReportAnswer>> {
    if (!liveRecord(this.#sql) || !readDelivery(this.#sql, deliveryId)) return unknownDelivery(deliveryId);
    const now = Date.now();
    const where = byId(deliveryId);
    const error = report.error ?? "no reason given";
    const answer = this.#storage.transactionSync((): DeliveryReportAnswer => {
      if (report.partsSent !== undefined) notePartsSent(this.#sql, where, report.partsSent);
      if (report.outcome === "delivered") markDelivered(this.#sql, where, now);
      else if (report.outcome === "failed") markFailed(this.#sql, where, error, now);
      else if (report.outcome === "dead_letter") markSuspended(this.#sql, where, error, now);
      else {
        const next = attemptFailed(this.#sql, where, error, now, report.retryAt);
        if (next && "retryAt" in next)
          return { retryInSeconds: Math.max(1, Math.ceil((next.retryAt - now) / 1000)) };
      }
      return { settled: readDelivery(this.#sql, deliveryId)?.status ?? "suspended" };
    });
    await this.#outbox.flush();
    return { ok: true, value: answer };
  }

  async retry(deliveryId: string): Promise<Result<DeliveryRecord>> {
    return this.#operate(deliveryId, () => retryDelivery(this.#sql, deliveryId));
  }

  async dismiss(deliveryId: string): Promise<Result<DeliveryRecord>> {
    return this.#operate(deliveryId, () => dismissDelivery(this.#sql, deliveryId));
  }

  async #operate(deliveryId: string, action: () => OperatorAnswer): Promise<Result<DeliveryRecord>> {
    if (!liveRecord(this.#sql)) return notFound();
    const answer = this.#storage.transactionSync(action);
    if (!answer) return unknownDelivery(deliveryId);
    if (!answer.ok) return { ok: false, code: "conflict", message: answer.why };
    await this.#outbox.flush();
    return { ok: true, value: answer.record };
  }
}
