import { findAgent } from "../../config/agents";
import type { SwitchboardConfig } from "../../config/schema";
import type { TranscriptMessage } from "../../transcript/message";
import type { SteerMessage } from "../api";
import { type SessionRecord, updateRecord } from "../record/record";
import { appendEvent, steeredEvent } from "../store/event-log";
import { addIndexSync, addToOutbox } from "../store/outbox-store";
import { insertRun, runningRuns } from "../store/run-store";
import { appendMessages, summaryChanges } from "../transcript/transcript";

// Steering into the active run (sessions_send mode=steer, SPEC §14): the message joins the transcript
// at once and reaches the run in flight without restarting it. An openai or scripted run takes it
// from the `steering` table before its next step; a webhook agent is sent a signed `steer` notice.

/**
 * Appends a message steered into the session's active run and hands it to that run (call inside a
 * transaction). The active run's id, or undefined when no run is in flight (nothing is written).
 */
export function writeSteering(
  sql: SqlStorage,
  record: SessionRecord,
  config: SwitchboardConfig,
  steer: SteerMessage,
  now: number,
): string | undefined {
  const [active] = runningRuns(sql);
  if (!active) return undefined;
  const message: TranscriptMessage = {
    id: steer.id ?? `steer:${crypto.randomUUID()}`,
    role: "user",
    content: steer.text,
    provenance: steer.provenance,
    timestamp: now,
    runId: active.runId,
  };
  const appended = appendMessages(sql, [message], record.firstUserText !== undefined);
  if (appended.imported === 0) return active.runId;
  appendEvent(
    sql,
    { ...steeredEvent(active.runId, message.provenance), data: { messageId: message.id } },
    now,
  );
  updateRecord(sql, { updatedAt: Math.max(record.updatedAt, now), ...summaryChanges(appended) });
  addIndexSync(sql);
  if (findAgent(config, record.agentId)?.runtime.type === "webhook") {
    // The agent holds the run, not us: it is told, durably, through the outbox.
    addToOutbox(sql, "steer_notice", `steer:${message.id}`, {
      agentId: record.agentId,
      runId: active.runId,
      sessionKey: record.sessionKey,
      message,
    });
  } else {
    sql.exec("INSERT INTO steering (run_id, message_id) VALUES (?, ?)", active.runId, message.id);
  }
  return active.runId;
}

/**
 * The messages steered into a run after `afterSeq`, oldest first, with the seq to look after next time.
 * Rows stay until the run ends: a retried or resumed attempt starts again from 0 and sees them all.
 */
export function steeringAfter(
  sql: SqlStorage,
  runId: string,
  afterSeq: number,
): { messages: TranscriptMessage[]; lastSeq: number } {
  const rows = sql
    .exec<{ seq: number; body: string }>(
      `SELECT steering.seq AS seq, message.body AS body FROM steering
       JOIN message ON message.id = steering.message_id
       WHERE steering.run_id = ? AND steering.seq > ? ORDER BY steering.seq`,
      runId,
      afterSeq,
    )
    .toArray();
  return {
    messages: rows.map((row) => JSON.parse(row.body) as TranscriptMessage),
    lastSeq: rows.at(-1)?.seq ?? afterSeq,
  };
}

/** Records that the run's runtime has been handed its steered messages up to `seq`. */
export function markSteeringTaken(sql: SqlStorage, runId: string, seq: number): void {
  sql.exec("UPDATE steering SET taken = 1 WHERE run_id = ? AND seq <= ? AND taken = 0", runId, seq);
}

/**
 * At a run's end (inside its transaction): a message steered in after the runtime's last look was
 * acknowledged as steered but never seen, so it starts a follow-up turn of its own, triggered by the
 * last such message (the run's history holds the others and the ended run's answer). Returns its run id.
 */
export function queueSteeringFollowUp(
  sql: SqlStorage,
  run: { runId: string; timeoutMs: number },
  now: number,
): string | undefined {
  const last = sql
    .exec<{ message_id: string }>(
      "SELECT message_id FROM steering WHERE run_id = ? AND taken = 0 ORDER BY seq DESC LIMIT 1",
      run.runId,
    )
    .toArray()[0];
  if (!last) return undefined;
  const followUp = crypto.randomUUID();
  // The same time allowance as the run the message was steered into.
  insertRun(sql, { runId: followUp }, last.message_id, run.timeoutMs, now);
  return followUp;
}

/** Forgets a run's steering rows once it has ended: the messages stay in the transcript for the next turn. */
export function clearSteering(sql: SqlStorage, runId?: string): void {
  if (runId === undefined) sql.exec("DELETE FROM steering");
  else sql.exec("DELETE FROM steering WHERE run_id = ?", runId);
}
