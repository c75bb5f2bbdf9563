import type { Alarm } from "../alarm";
import type { Result, SendRecordRequest, SentRecord } from "../api";
import { writeSend } from "../store/sent";

/**
 * Records a handoff in this (sending) session (SessionApi.recordSend). The RPC calls it for a Worker's
 * tool call, and a run's own tools call it directly: the object is theirs, so no stub to itself.
 */
export async function recordSend(
  storage: DurableObjectStorage,
  alarm: Alarm,
  send: SendRecordRequest,
): Promise<Result<SentRecord & { duplicate: boolean }>> {
  // Nothing it writes is due now, so no outbox pass: a sender busy with its own runs answers at once
  // instead of after delivering what those owe. The alarm covers the Queue turn's grace.
  const value = storage.transactionSync(() => writeSend(storage.sql, send, Date.now()));
  await alarm.rearm();
  return { ok: true, value };
}
