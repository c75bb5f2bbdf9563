/** OpenClaw's SESSIONS_SEARCH_SNIPPET_MAX_CHARS: a hit's snippet, ellipses included. */
export const SNIPPET_MAX_CHARS = 300;
// How much of the text before the first match a cut snippet keeps, for context.
const LEAD_CHARS = 80;

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/** Where the first query term occurs (case-insensitive), or 0 when none does literally (a diacritic match). */
function firstMatch(text: string, terms: readonly string[]): number {
  const lower = text.toLowerCase();
  const found = terms.map((term) => lower.indexOf(term.toLowerCase())).filter((at) => at >= 0);
  return found.length > 0 ? Math.min(...found) : 0;
}

/**
 * A window of at most SNIPPET_MAX_CHARS around the first match, with `…` where it cuts. The text is
 * already made safe as a whole (cleaned and redacted when it was indexed), so a cut can never leave half
 * a secret unmasked; a cut never splits a surrogate pair.
 */
export function snippetOf(text: string, terms: readonly string[]): string {
  if (text.length <= SNIPPET_MAX_CHARS) return text;
  const at = firstMatch(text, terms);
  let start = Math.max(0, Math.min(at - LEAD_CHARS, text.length - SNIPPET_MAX_CHARS + 1));
  if (start > 0 && isLowSurrogate(text.charCodeAt(start))) start++;
  const room = SNIPPET_MAX_CHARS - (start > 0 ? 1 : 0);
  let end = Math.min(text.length, start + room);
  if (end < text.length) {
    end--;
    if (isHighSurrogate(text.charCodeAt(end - 1))) end--;
  }
  return `${start > 0 ? "…" : ""}${text.slice(start, end)}${end < text.length ? "…" : ""}`;
}

/**
 * The query's terms: whitespace-separated, control characters read as spaces, and only those with a
 * letter or digit: FTS5 reads the rest (`-`, `->`, `…`, a zero-width space) as a phrase without a
 * token, which matches nothing and would make the whole query find nothing.
 */
export function queryTerms(query: string): string[] {
  return query
    .replace(/\p{Cc}/gu, " ")
    .split(/\s+/)
    .filter((term) => /[\p{L}\p{N}]/u.test(term));
}

/** The FTS5 MATCH expression: each term a quoted phrase (quotes doubled), all of them required. */
export function matchExpression(terms: readonly string[]): string {
  return terms.map((term) => `"${term.replaceAll('"', '""')}"`).join(" AND ");
}
