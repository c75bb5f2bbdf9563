import type { TranscriptMessage } from "../../transcript/message";
import { previewText } from "../record/derived-title";
import type { RecordChanges } from "../record/record";
import { safeCopy } from "./safe-copy";
import { headlessText, safeIndexText } from "./transcript";

// Erasure (SPEC §23): a person's text copied into this transcript is replaced, in place, by `[erased]`.
// The row keeps its id, role, place and provenance (a session key, no text), so the numbering stays
// contiguous and a second pass finds the same rows again: erasing is idempotent.

/** What an erased message's text becomes. */
export const ERASED_TEXT = "[erased]";

/** Whose text is erased: messages routed from these sessions, or said by this sender on this channel. */
export interface ErasureMatch {
  sourceKeys: readonly string[];
  sender?: { channel: string; senderId: string };
}

type Row = { id: string; body: string };

/** SQL for the rows a match names, with its bound values. */
function matching(match: ErasureMatch): { where: string; binds: unknown[] } {
  const terms: string[] = [];
  const binds: unknown[] = [];
  if (match.sourceKeys.length > 0) {
    terms.push("json_extract(body, '$.provenance.sourceSessionKey') IN (SELECT value FROM json_each(?))");
    binds.push(JSON.stringify(match.sourceKeys));
  }
  if (match.sender) {
    terms.push(
      `(json_extract(body, '$.provenance.sourceChannel') = ? AND json_extract(body, '$.provenance.senderId') = ?)`,
    );
    binds.push(match.sender.channel, match.sender.senderId);
  }
  return { where: terms.length > 0 ? terms.join(" OR ") : "0", binds };
}

function erasedBody(message: TranscriptMessage): TranscriptMessage {
  // Kept: what says where the row came from (its provenance, without a sender's display name).
  const { senderName: _name, ...provenance } = (message.provenance ?? {}) as Record<string, unknown>;
  return {
    id: message.id,
    role: message.role,
    content: ERASED_TEXT,
    timestamp: message.timestamp,
    ...(message.provenance ? { provenance: provenance as TranscriptMessage["provenance"] } : {}),
    ...(message.runId ? { runId: message.runId } : {}),
  };
}

/** Replaces the messages a condition names by `[erased]`; answers every id it names and how many changed. */
function eraseWhere(sql: SqlStorage, where: string, binds: unknown[]): { ids: string[]; changed: number } {
  const rows = sql.exec<Row>(`SELECT id, body FROM message WHERE ${where}`, ...binds).toArray();
  let changed = 0;
  for (const row of rows) {
    const message = JSON.parse(row.body) as TranscriptMessage;
    if (message.content === ERASED_TEXT) continue;
    rewriteMessage(sql, row.id, erasedBody(message));
    changed++;
  }
  return { ids: rows.map((row) => row.id), changed };
}

/** The ids of the messages a match names (erased already or not). */
export function matchingIds(sql: SqlStorage, match: ErasureMatch): string[] {
  const { where, binds } = matching(match);
  return sql
    .exec<{ id: string }>(`SELECT id FROM message WHERE ${where}`, ...binds)
    .toArray()
    .map((row) => row.id);
}

/**
 * Replaces the matching messages' text (and their held group context) by `[erased]`. Answers the ids of
 * every matching message, erased now or by an earlier pass (their search rows are deleted by id), and
 * how many rows this call changed.
 */
export function eraseMessages(sql: SqlStorage, match: ErasureMatch): { ids: string[]; changed: number } {
  const { where, binds } = matching(match);
  const erased = eraseWhere(sql, where, binds);
  const held = sql.exec(`DELETE FROM group_context WHERE ${where}`, ...binds).rowsWritten;
  return { ids: erased.ids, changed: erased.changed + held };
}

/** The messages these runs wrote (the answers to an erased message, which may quote it) erased too. */
export function eraseRunMessages(
  sql: SqlStorage,
  runIds: readonly string[],
): { ids: string[]; changed: number } {
  if (runIds.length === 0) return { ids: [], changed: 0 };
  return eraseWhere(sql, "json_extract(body, '$.runId') IN (SELECT value FROM json_each(?))", [
    JSON.stringify(runIds),
  ]);
}

/**
 * The record's title and preview read again from the transcript (an erased message may have been
 * either): the first user text and the newest user or assistant text.
 */
export function summaryAfterErasure(
  sql: SqlStorage,
): Pick<RecordChanges, "firstUserText" | "lastMessagePreview"> {
  const textOf = (order: "ASC" | "DESC", roles: string): string | undefined => {
    for (const row of sql.exec<Row>(
      `SELECT id, body FROM message WHERE role IN (${roles}) ORDER BY seq ${order}`,
    )) {
      const message = JSON.parse(row.body) as TranscriptMessage;
      const text = headlessText(message, safeIndexText(message));
      if (text.trim()) return text;
    }
    return undefined;
  };
  const first = textOf("ASC", "'user'");
  const last = textOf("DESC", "'user', 'assistant'");
  return {
    firstUserText: first === undefined ? null : first.slice(0, 1000),
    lastMessagePreview: last === undefined ? null : previewText(last),
  };
}

/** The sessions that routed messages into this transcript (erasure's partners: it may have answered them). */
export function messageSources(sql: SqlStorage): string[] {
  return sql
    .exec<{ key: string }>(
      `SELECT DISTINCT json_extract(body, '$.provenance.sourceSessionKey') AS key FROM message
       WHERE json_extract(body, '$.provenance.sourceSessionKey') IS NOT NULL`,
    )
    .toArray()
    .map((row) => row.key);
}

/** A stored message's body replaced (its text erased), with the safe copy tools read made again. */
export function rewriteMessage(sql: SqlStorage, id: string, message: TranscriptMessage): void {
  const body = JSON.stringify(message);
  const copy = safeCopy(message, body);
  sql.exec(
    "UPDATE message SET body = ?, safe_body = ?, safe_flags = ?, safe_rules = ? WHERE id = ?",
    body,
    copy.safeBody,
    copy.flags,
    copy.rules,
    id,
  );
}
