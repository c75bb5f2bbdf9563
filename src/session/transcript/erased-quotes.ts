import { messageText, type TranscriptMessage } from "../../transcript/message";
import { quotableTexts, quotedIn, replaceQuoted } from "../store/quoted-text";
import { rewriteMessage } from "./erasure";
import { headlessText } from "./transcript";

// Erasure (SPEC §23) of exact quotes: the erased person's words where this transcript repeats them
// without their provenance — a tool result that read the erased session's history or search hits, a
// reply that echoed them. Each quote is replaced by the marker in place; the rest of the message stays.

type Row = { id: string; body: string };

/** The words of these messages (headers removed) as a quote of them would repeat them. */
function wordsOf(rows: Iterable<Row>): string[] {
  const texts: string[] = [];
  for (const row of rows) {
    const message = JSON.parse(row.body) as TranscriptMessage;
    texts.push(headlessText(message, messageText(message)));
  }
  return texts;
}

/**
 * What an erased session said and was answered with (user and assistant messages, the newest first):
 * the texts its partners look for (ErasurePlan.texts), within quotableTexts' caps.
 */
export function sessionTexts(sql: SqlStorage): string[] {
  return quotableTexts(
    wordsOf(
      sql.exec<Row>(
        "SELECT id, body FROM message WHERE role IN ('user', 'assistant') ORDER BY seq DESC LIMIT 1000",
      ),
    ),
  );
}

/** The words of the messages with these ids (read before they are erased here). */
export function textsOfMessages(sql: SqlStorage, ids: readonly string[]): string[] {
  if (ids.length === 0) return [];
  return wordsOf(
    sql.exec<Row>(
      "SELECT id, body FROM message WHERE id IN (SELECT value FROM json_each(?))",
      JSON.stringify(ids),
    ),
  );
}

/** The oldest seq among these messages (what a compaction summary built from them covers). */
export function firstSeqOf(sql: SqlStorage, ids: readonly string[]): number | undefined {
  if (ids.length === 0) return undefined;
  const row = sql
    .exec<{ seq: number | null }>(
      "SELECT MIN(seq) AS seq FROM message WHERE id IN (SELECT value FROM json_each(?))",
      JSON.stringify(ids),
    )
    .one();
  return row.seq ?? undefined;
}

/**
 * Replaces every exact quote of the texts in this transcript's messages (tool results included) by the
 * marker, their safe copies made again. Answers the ids changed (their search rows go) and how many.
 */
export function eraseQuotes(
  sql: SqlStorage,
  texts: readonly string[],
  marker: string,
): { ids: string[]; changed: number } {
  if (texts.length === 0) return { ids: [], changed: 0 };
  const quoted = quotedIn("body", texts);
  const ids: string[] = [];
  for (const row of sql
    .exec<Row>(`SELECT id, body FROM message WHERE ${quoted.where}`, quoted.bind)
    .toArray()) {
    const erased = replaceQuoted(JSON.parse(row.body) as TranscriptMessage, texts, marker);
    if (!erased.changed) continue;
    rewriteMessage(sql, row.id, erased.value);
    ids.push(row.id);
  }
  return { ids, changed: ids.length };
}
