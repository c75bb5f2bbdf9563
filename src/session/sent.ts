import { type SentRecord, turnRequestSchema } from "./api";

// What this session handed to others under an idempotency key or through the Queue (table `sent`): the
// key → (runId, target) record that answers a repeat from here, before anything else is known about it,
// and the turn itself, which a Queue message too large to carry it refers to.

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
