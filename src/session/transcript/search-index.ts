import { scopeColumn } from "../../index-db/search-scope";
import {
  type SearchMessage,
  searchBacklogFlag,
  searchMessagesInsert,
  searchSessionPresent,
} from "../../index-db/search-write";
import { readRecord } from "../record/record";
import { addToOutbox } from "../store/outbox-store";
import { messageCounts, readMessagesAfter, SEARCHED_ROLES, safeIndexText } from "./transcript";

// A pass writes at most this much of the transcript, so a large import is indexed in bounded chunks
// (one D1 batch each, alarm after alarm) and never holds a pass, or a D1 batch, for long.
const CHUNK_MESSAGES = 100;
const CHUNK_TEXT_CHARS = 512 * 1024;

/** One pass's share of the search index: its D1 writes, and how far the transcript is indexed once they land. */
export interface SearchChunk {
  statements: D1PreparedStatement[];
  throughSeq: number;
  caughtUp: boolean;
}

function readProgress(sql: SqlStorage): { indexedSeq: number; flagged: boolean } {
  const row = sql
    .exec<{ indexed_seq: number; flagged: number }>("SELECT indexed_seq, flagged FROM search_progress")
    .toArray()[0];
  return { indexedSeq: row?.indexed_seq ?? 0, flagged: row?.flagged === 1 };
}

/**
 * The next chunk of messages the index has not seen (after `indexed_seq`), as D1 statements: each
 * searched message's safe text (what sessions_history would show of it), and the index row's backlog
 * flag when it changes. Nothing for a deleted session: its index rows go with its delete. Messages older
 * than `keptFrom` (the session's searchRetention cutoff, SPEC §23) are passed over, never indexed: the
 * maintenance pass walks rows by the order they were indexed (src/index-db/search-retention.ts), so an
 * import's old messages would otherwise stay until about searchRetention after their import.
 */
export function searchIndexChunk(sql: SqlStorage, db: D1Database, keptFrom?: number): SearchChunk {
  const { indexedSeq, flagged } = readProgress(sql);
  const record = readRecord(sql);
  if (!record || record.deletedAt !== undefined)
    return { statements: [], throughSeq: indexedSeq, caughtUp: true };
  const { sessionKey, sessionId } = record;
  const messages: SearchMessage[] = [];
  let throughSeq = indexedSeq;
  let chars = 0;
  for (const { seq, message } of readMessagesAfter(sql, indexedSeq, CHUNK_MESSAGES)) {
    if (chars >= CHUNK_TEXT_CHARS) break;
    throughSeq = seq;
    if (!SEARCHED_ROLES.has(message.role)) continue;
    if (keptFrom !== undefined && message.timestamp < keptFrom) continue;
    const text = safeIndexText(message);
    if (!text.trim()) continue;
    chars += text.length;
    messages.push({ messageId: message.id, role: message.role, timestamp: message.timestamp, text });
  }
  const session = { sessionKey, sessionId, scope: scopeColumn(record) };
  const statements = searchMessagesInsert(db, session, messages);
  const caughtUp = throughSeq >= messageCounts(sql).all;
  // A new generation always sends its flag: the row upsert keeps the column across a re-created key, so
  // an earlier session's flag would otherwise stick (the UPDATE writes only when the flag differs).
  if (caughtUp === flagged || indexedSeq === 0)
    statements.push(searchBacklogFlag(db, sessionKey, sessionId, !caughtUp));
  // Last: did the inserts find their session's index row? (Else they wrote nothing: retried later.)
  statements.push(searchSessionPresent(db, sessionKey, sessionId));
  return { statements, throughSeq, caughtUp };
}

/**
 * After the chunk's batch landed: remembers how far the index got, and keeps the entry owed (due now,
 * for the next pass) while a backlog remains. False when the entry is to be settled as usual.
 */
export function searchChunkWritten(sql: SqlStorage, chunk: SearchChunk): boolean {
  sql.exec(
    `INSERT INTO search_progress (id, indexed_seq, flagged) VALUES (1, ?, ?)
     ON CONFLICT (id) DO UPDATE SET indexed_seq = excluded.indexed_seq, flagged = excluded.flagged`,
    chunk.throughSeq,
    chunk.caughtUp ? 0 : 1,
  );
  if (chunk.caughtUp) return false;
  addToOutbox(sql, "search_index", "search", { throughSeq: messageCounts(sql).all });
  return true;
}

/** Forgets the progress (a new session replacing a deleted one's leftovers starts from its first message). */
export function clearSearchProgress(sql: SqlStorage): void {
  sql.exec("DELETE FROM search_progress");
}
