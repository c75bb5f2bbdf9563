/** The longest text `sessions_history` returns in one block (SPEC §5.2 step 3). */
export const MAX_HISTORY_TEXT_CHARS = 4000;

/** Appended to a text that was cut. */
export const TRUNCATION_MARKER = "\n…(truncated)…";

/** Cuts a text longer than 4000 chars and marks it; never splits a surrogate pair. */
export function truncateText(text: string): { text: string; truncated: boolean } {
  if (text.length <= MAX_HISTORY_TEXT_CHARS) return { text, truncated: false };
  let cut = MAX_HISTORY_TEXT_CHARS;
  // Keeping half of a pair would leave a lone surrogate, which is not valid UTF-8 on the wire.
  if (isHighSurrogate(text.charCodeAt(cut - 1))) cut -= 1;
  return { text: text.slice(0, cut) + TRUNCATION_MARKER, truncated: true };
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
