import { type CodeSpan, findCodeSpans, isInsideCode } from "./code-spans";
import { endOfCloseTagOutsideStrings } from "./json-scan";

const TOOL_TAG_NAMES = "tool_call|tool_result|function_call|function_calls|tool_calls";
const TOOL_TAG = new RegExp(`<\\s*(\\/?)\\s*(${TOOL_TAG_NAMES})(?=[\\s/>])[^<>]*>`, "gi");
// An opening tag cut off by the end of the text (`<tool_call` or `<tool_call name="x`): a truncated
// payload, so it and everything after it go. Only attribute-shaped tails count, so prose survives.
const TRUNCATED_OPENING = new RegExp(
  `<\\s*(?:${TOOL_TAG_NAMES})(?:\\s+[\\w:-]+\\s*=\\s*(?:"[^"]*"?|'[^']*'?|[^\\s<>]*))*\\s*$`,
  "i",
);

/**
 * Removes tool-call XML payload blocks whose content starts with `{` or `[`, through the matching close
 * tag (a close tag inside a JSON string does not count); an unclosed or truncated payload hides the rest
 * of the text. Self-closing and lone closing tags go; an opening tag in prose and anything in code stay.
 */
export function stripToolPayloadBlocks(text: string): string {
  const code = findCodeSpans(text);
  const tagPattern = new RegExp(TOOL_TAG.source, TOOL_TAG.flags);
  let out = "";
  let cursor = 0;
  for (let tag = tagPattern.exec(text); tag !== null; tag = tagPattern.exec(text)) {
    if (isInsideCode(code, tag.index)) continue;
    const afterTag = tag.index + tag[0].length;
    const isClosing = tag[1] === "/";
    if (isClosing || tag[0].endsWith("/>")) {
      out += text.slice(cursor, tag.index);
      cursor = afterTag;
      continue;
    }
    const payloadStart = skipWhitespace(text, afterTag);
    const firstChar = text[payloadStart];
    if (firstChar === undefined) return out + text.slice(cursor, tag.index);
    if (firstChar !== "{" && firstChar !== "[") continue;
    const closeTag = new RegExp(`<\\s*\\/\\s*${tag[2]}\\s*>`, "iy");
    const blockEnd = endOfCloseTagOutsideStrings(text, payloadStart, closeTag);
    out += text.slice(cursor, tag.index);
    if (blockEnd === null) return out;
    cursor = blockEnd;
    tagPattern.lastIndex = blockEnd;
  }
  return out + stripTruncatedOpening(text.slice(cursor), cursor, code);
}

function stripTruncatedOpening(tail: string, tailOffset: number, code: readonly CodeSpan[]): string {
  const truncated = TRUNCATED_OPENING.exec(tail);
  if (truncated === null || isInsideCode(code, tailOffset + truncated.index)) return tail;
  return tail.slice(0, truncated.index);
}

function skipWhitespace(text: string, from: number): number {
  let index = from;
  while (index < text.length && /\s/.test(text[index] ?? "")) index += 1;
  return index;
}
