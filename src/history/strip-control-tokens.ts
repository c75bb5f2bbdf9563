import { findCodeSpans, isInsideCode } from "./code-spans";

// `<|im_end|>`-style delimiters and DeepSeek's full-width `<｜begin▁of▁sentence｜>`; a run of adjacent
// tokens is handled as one so the spacing rule looks at the text around the whole run.
const CONTROL_TOKEN_RUN = /(?:<\|[^|｜<>`\n]{1,100}\|>|<｜[^|｜<>`\n]{1,100}｜>)+/g;

/**
 * Removes leaked model control tokens outside code. Where a token sat between two non-space characters
 * one space is kept, so the words on either side do not run together; otherwise it leaves nothing.
 */
export function stripControlTokens(text: string): string {
  if (!text.includes("<|") && !text.includes("<｜")) return text;
  const code = findCodeSpans(text);
  let out = "";
  let cursor = 0;
  for (const run of text.matchAll(CONTROL_TOKEN_RUN)) {
    if (isInsideCode(code, run.index)) continue;
    out += text.slice(cursor, run.index);
    cursor = run.index + run[0].length;
    if (isNonSpace(out.at(-1)) && isNonSpace(text[cursor])) out += " ";
  }
  return out + text.slice(cursor);
}

function isNonSpace(char: string | undefined): boolean {
  return char !== undefined && !/\s/.test(char);
}
