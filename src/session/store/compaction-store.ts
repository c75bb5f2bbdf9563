import { readRecord, updateRecord } from "../record/record";
import { appendEvent, systemEvent } from "./event-log";
import { replaceQuoted } from "./quoted-text";

/** The session's compaction summary (table `compaction`, SPEC §20): what later prompts start from. */
export interface CompactionSummary {
  operationId: string;
  /** The newest message seq the summary covers: the uncompacted history is every message after it. */
  throughSeq: number;
  summary: string;
  compactedAt: number;
}

/** What one compaction did, as its `compacted` event records it. */
export interface CompactionNote {
  /** The run it ran in (an automatic compaction), absent on demand. */
  runId?: string;
  /** Messages summarized now, and the newest kept verbatim. */
  summarizedMessages: number;
  keptMessages: number;
}

/** The session's summary, if it was ever compacted. */
export function readCompaction(sql: SqlStorage): CompactionSummary | undefined {
  const row = sql
    .exec<{ operation_id: string; through_seq: number; summary: string; compacted_at: number }>(
      "SELECT operation_id, through_seq, summary, compacted_at FROM compaction WHERE id = 1",
    )
    .toArray()[0];
  return row
    ? {
        operationId: row.operation_id,
        throughSeq: row.through_seq,
        summary: row.summary,
        compactedAt: row.compacted_at,
      }
    : undefined;
}

/**
 * Writes a new summary in place of the last, counts it on the record and logs `compacted` (OpenClaw's
 * summary and dedupe key; it notifies no watcher): all in the caller's transaction, so an eviction
 * leaves either all of it or none.
 */
export function writeCompaction(sql: SqlStorage, summary: CompactionSummary, note: CompactionNote): void {
  sql.exec(
    `INSERT OR REPLACE INTO compaction (id, operation_id, through_seq, summary, compacted_at)
     VALUES (1, ?, ?, ?, ?)`,
    summary.operationId,
    summary.throughSeq,
    summary.summary,
    summary.compactedAt,
  );
  updateRecord(sql, { compactionCount: (readRecord(sql)?.compactionCount ?? 0) + 1 });
  appendEvent(
    sql,
    systemEvent("compacted", "session compacted", {
      ...(note.runId ? { runId: note.runId } : {}),
      data: {
        operationId: summary.operationId,
        dedupeKey: `compacted:${summary.operationId}`,
        throughSeq: summary.throughSeq,
        summarizedMessages: note.summarizedMessages,
        keptMessages: note.keptMessages,
      },
    }),
    summary.compactedAt,
  );
}

/** Forgets the summary (a new session replacing a deleted one's leftovers). */
export function clearCompaction(sql: SqlStorage): void {
  sql.exec("DELETE FROM compaction");
}

/**
 * Erasure (SPEC §23) of the summary: one built from an erased message (it covers a seq from
 * `fromSeq` on) is dropped, its text the marker alone, since a summary may paraphrase what no exact
 * search finds; the next compaction summarizes the transcript again, where those messages read as the
 * marker. Any other summary has exact quotes of the texts replaced. Answers 1 when it changed.
 */
export function eraseFromSummary(
  sql: SqlStorage,
  erased: { fromSeq: number | undefined; texts: readonly string[] },
  marker: string,
): number {
  const current = readCompaction(sql);
  if (!current || current.summary === marker) return 0;
  const built = erased.fromSeq !== undefined && erased.fromSeq <= current.throughSeq;
  const summary = built ? marker : replaceQuoted(current.summary, erased.texts, marker).value;
  if (summary === current.summary) return 0;
  sql.exec("UPDATE compaction SET summary = ? WHERE id = 1", summary);
  return 1;
}
