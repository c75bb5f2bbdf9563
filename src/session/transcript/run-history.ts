import type { TranscriptMessage } from "../../transcript/message";

/** A stored message with its place in the transcript. */
export interface SeqMessage {
  seq: number;
  message: TranscriptMessage;
}

/**
 * A run's history after `afterSeq` (what a compaction summary does not cover), newest first and read
 * lazily: the caller stops once its token budget is spent, so a long transcript costs what the prompt
 * takes. The conversation so far is what came before the trigger, and what earlier runs appended after
 * it (a turn queued behind another run, or a steered message that outlived its run, sees that run's
 * answer); never the triggers of turns still queued, nor messages steered into this run (it takes those
 * itself).
 */
export function* runHistory(
  sql: SqlStorage,
  run: { runId: string; triggerMessageId: string },
  queuedTriggers: string[],
  afterSeq: number,
): Generator<SeqMessage> {
  const rows = sql.exec<{ seq: number; body: string }>(
    `SELECT seq, body FROM message WHERE seq > ?4 AND id != ?1
       AND (seq < (SELECT seq FROM message WHERE id = ?1)
         OR (id NOT IN (SELECT value FROM json_each(?2)) AND json_extract(body, '$.runId') IS NOT ?3))
     ORDER BY seq DESC`,
    run.triggerMessageId,
    JSON.stringify(queuedTriggers),
    run.runId,
    afterSeq,
  );
  for (const row of rows) yield { seq: row.seq, message: JSON.parse(row.body) as TranscriptMessage };
}

/** Every message after `afterSeq`, newest first and read lazily (an on-demand compaction's history). */
export function* messagesNewestFirst(sql: SqlStorage, afterSeq: number): Generator<SeqMessage> {
  const rows = sql.exec<{ seq: number; body: string }>(
    "SELECT seq, body FROM message WHERE seq > ? ORDER BY seq DESC",
    afterSeq,
  );
  for (const row of rows) yield { seq: row.seq, message: JSON.parse(row.body) as TranscriptMessage };
}

/** The place of a stored message in the transcript, if it is stored. */
export function messageSeq(sql: SqlStorage, id: string): number | undefined {
  return sql.exec<{ seq: number }>("SELECT seq FROM message WHERE id = ?", id).toArray()[0]?.seq;
}
