/**
 * Table `live_draft` (SPEC §21 Live): the platform message a run's reply is being written into, when it
 * was last edited (the object's clock) and what it shows. Written while the run works, taken by the
 * run's end, which owes the final edit (or the draft's retraction) in the same transaction.
 */
export interface LiveDraft {
  messageId: string;
  editedAt: number;
  shown: string;
}

type Row = { message_id: string; edited_at: number; shown: string };

/** The run's draft, if it has one. */
export function liveDraft(sql: SqlStorage, runId: string): LiveDraft | undefined {
  const row = sql
    .exec<Row>("SELECT message_id, edited_at, shown FROM live_draft WHERE run_id = ?", runId)
    .toArray()[0];
  return row ? { messageId: row.message_id, editedAt: row.edited_at, shown: row.shown } : undefined;
}

/** Records the run's draft as it now is. */
export function saveLiveDraft(sql: SqlStorage, runId: string, draft: LiveDraft): void {
  sql.exec(
    `INSERT INTO live_draft (run_id, message_id, edited_at, shown) VALUES (?, ?, ?, ?)
     ON CONFLICT (run_id) DO UPDATE SET message_id = excluded.message_id, edited_at = excluded.edited_at,
       shown = excluded.shown`,
    runId,
    draft.messageId,
    draft.editedAt,
    draft.shown,
  );
}

/** The run's draft, removed: its run has ended and owes the draft's last edit or its retraction. */
export function takeLiveDraft(sql: SqlStorage, runId: string): LiveDraft | undefined {
  const draft = liveDraft(sql, runId);
  if (draft) sql.exec("DELETE FROM live_draft WHERE run_id = ?", runId);
  return draft;
}

/** A new session has no drafts (writeCreation). */
export function clearLiveDrafts(sql: SqlStorage): void {
  sql.exec("DELETE FROM live_draft");
}
