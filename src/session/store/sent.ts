import {
  type Result,
  type SendRecordRequest,
  type SentRecord,
  type TurnRequest,
  turnRequestSchema,
} from "../api";
import { addToOutbox, removeFromOutbox } from "./outbox-store";

// What this session handed to others under an idempotency key or through the Queue (table `sent`): the
// key → (runId, target) record that answers a repeat from here, before anything else is known about it,
// and the turn itself, which a Queue message too large to carry it refers to. The send-ledger RPCs
// (recordSend, sendQueued, sentTurn) write and read it here.

type SentRow = {
  run_id: string;
  target_key: string;
  turn: string | null;
};

function toSent(row: SentRow | undefined): SentRecord | undefined {
  if (!row) return undefined;
  const turn = row.turn === null ? undefined : turnRequestSchema.safeParse(JSON.parse(row.turn));
  return {
    runId: row.run_id,
    targetKey: row.target_key,
    ...(turn?.success ? { turn: turn.data } : {}),
  };
}

/** The handoff recorded under an idempotency key (`<tool>:<key>`), if any. */
export function findSentByKey(sql: SqlStorage, idempotencyKey: string): SentRecord | undefined {
  return toSent(
    sql
      .exec<SentRow>("SELECT run_id, target_key, turn FROM sent WHERE idempotency_key = ?", idempotencyKey)
      .toArray()[0],
  );
}

/** The handoff of a run, if any. */
export function findSentByRun(sql: SqlStorage, runId: string): SentRecord | undefined {
  return toSent(
    sql.exec<SentRow>("SELECT run_id, target_key, turn FROM sent WHERE run_id = ?", runId).toArray()[0],
  );
}

/** Records a handoff; a repeat of the same runId changes nothing. */
export function recordSent(
  sql: SqlStorage,
  sent: SentRecord & { idempotencyKey?: string },
  now: number,
): void {
  sql.exec(
    `INSERT INTO sent (run_id, idempotency_key, target_key, turn, created_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (run_id) DO NOTHING`,
    sent.runId,
    sent.idempotencyKey ?? null,
    sent.targetKey,
    sent.turn ? JSON.stringify(sent.turn) : null,
    now,
  );
}

/** How long a send the Worker puts on the Queue itself is left to it before this session's outbox does. */
const QUEUED_SEND_GRACE_MS = 10_000;

/**
 * Records a handoff (see SessionApi.recordSend): a repeat of its key answers the first; a turn for the
 * Queue is owed through the outbox too, a little later, in case the caller dies before it gets there.
 */
export function writeSend(
  sql: SqlStorage,
  send: SendRecordRequest,
  now: number,
): SentRecord & { duplicate: boolean } {
  const first = send.idempotencyKey
    ? findSentByKey(sql, send.idempotencyKey)
    : findSentByRun(sql, send.runId);
  if (first) return { ...first, duplicate: true };
  recordSent(sql, send, now);
  if (send.viaQueue && send.turn)
    addToOutbox(
      sql,
      "turn",
      `send:${send.runId}`,
      { targets: [send.targetKey], request: send.turn, viaQueue: send.viaQueue },
      now + QUEUED_SEND_GRACE_MS,
    );
  return {
    runId: send.runId,
    targetKey: send.targetKey,
    ...(send.turn ? { turn: send.turn } : {}),
    duplicate: false,
  };
}

/** The Worker put a recorded send on the Queue itself: nothing more is owed for it. */
export function settleQueuedSend(sql: SqlStorage, runId: string): boolean {
  return removeFromOutbox(sql, `send:${runId}`);
}

/** The turn of a recorded send (SessionApi.sentTurn). */
export function readSentTurn(sql: SqlStorage, runId: string): Result<TurnRequest> {
  const turn = findSentByRun(sql, runId)?.turn;
  return turn
    ? { ok: true, value: turn }
    : { ok: false, code: "not_found", message: `no send ${runId} here` };
}

/** The sessions this one handed something to (erasure's partners, SPEC §23). */
export function sentTargets(sql: SqlStorage): string[] {
  return sql
    .exec<{ target_key: string }>("SELECT DISTINCT target_key FROM sent")
    .toArray()
    .map((row) => row.target_key);
}

/** How many sent records this session holds (erasure's count of a requester never created). */
export function countSent(sql: SqlStorage): number {
  return sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM sent").one().n;
}

/** Erasure: the turns this session handed to erased sessions lose their text; their keys stay for dedupe. */
export function forgetSentTurns(sql: SqlStorage, targetKeys: readonly string[]): number {
  return sql.exec(
    "UPDATE sent SET turn = NULL WHERE turn IS NOT NULL AND target_key IN (SELECT value FROM json_each(?))",
    JSON.stringify(targetKeys),
  ).rowsWritten;
}
