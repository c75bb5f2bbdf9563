// Erasure (SPEC §23) of text quoted elsewhere: an erased session's words repeated, exactly, in another
// session's derived copies (a tool result that read its history, a compaction summary, an entry still
// owed). Found by exact text only: a paraphrase cannot be found (README "Deletion and erasure").

/** Texts shorter than this are not looked for: a short phrase ("ok", "thank you") is anyone's. */
export const MIN_QUOTED_CHARS = 16;

/** At most this many texts per erasure, and this many characters in all (the newest first). */
const MAX_TEXTS = 200;
const MAX_TOTAL_CHARS = 256 * 1024;

/** A text inside a JSON string (what a stored body holds): escaped, without its quotes. */
function inJson(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

/** The texts worth looking for: long enough, distinct, within the caps, in the order given. */
export function quotableTexts(texts: readonly string[]): string[] {
  const kept: string[] = [];
  let total = 0;
  for (const text of new Set(texts.map((each) => each.trim()))) {
    if (text.length < MIN_QUOTED_CHARS || kept.length >= MAX_TEXTS) continue;
    if (total + text.length > MAX_TOTAL_CHARS) break;
    kept.push(text);
    total += text.length;
  }
  return kept;
}

/**
 * Every form a text takes in a JSON column: as is, inside a JSON string (a message's content), and
 * inside JSON held in a JSON string (a tool result's text is JSON itself).
 */
function storedForms(texts: readonly string[]): string[] {
  return [...new Set(texts.flatMap((text) => [text, inJson(text), inJson(inJson(text))]))];
}

/** A condition on `column` holding any of the texts in any stored form, with its one bound value. */
export function quotedIn(column: string, texts: readonly string[]): { where: string; bind: string } {
  return {
    where: `EXISTS (SELECT 1 FROM json_each(?) WHERE instr(${column}, value) > 0)`,
    bind: JSON.stringify(storedForms(texts)),
  };
}

/** One string with every occurrence of each text (as is, or JSON-escaped) replaced by the marker. */
function replaceIn(value: string, texts: readonly string[], marker: string): string {
  let out = value;
  for (const text of texts)
    for (const form of [text, inJson(text)]) if (out.includes(form)) out = out.split(form).join(marker);
  return out;
}

/** A JSON value with every string's quotes of the texts replaced by the marker; `changed` if any was. */
export function replaceQuoted<T>(
  value: T,
  texts: readonly string[],
  marker: string,
): { value: T; changed: boolean } {
  let changed = false;
  const walk = (node: unknown): unknown => {
    if (typeof node === "string") {
      const out = replaceIn(node, texts, marker);
      if (out !== node) changed = true;
      return out;
    }
    if (Array.isArray(node)) return node.map(walk);
    if (node && typeof node === "object")
      return Object.fromEntries(Object.entries(node).map(([key, child]) => [key, walk(child)]));
    return node;
  };
  const out = walk(value) as T;
  return { value: out, changed };
}

/**
 * The rows of `table` whose JSON `column` quotes any of the texts get the marker instead (the quotes in
 * every string of the JSON). Table and columns are this code's own names, never a caller's input.
 * Answers the rows rewritten.
 */
export function eraseQuotedJson(
  sql: SqlStorage,
  where: { table: string; id: string; column: string },
  texts: readonly string[],
  marker: string,
): number {
  if (texts.length === 0) return 0;
  const { table, id, column } = where;
  const quoted = quotedIn(column, texts);
  let changed = 0;
  for (const row of sql.exec<Record<string, string | number>>(
    `SELECT ${id} AS id, ${column} AS json FROM ${table} WHERE ${column} IS NOT NULL AND ${quoted.where}`,
    quoted.bind,
  )) {
    const erased = replaceQuoted(JSON.parse(String(row.json)) as unknown, texts, marker);
    if (!erased.changed) continue;
    sql.exec(`UPDATE ${table} SET ${column} = ? WHERE ${id} = ?`, JSON.stringify(erased.value), row.id);
    changed++;
  }
  return changed;
}
