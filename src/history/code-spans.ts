/** A half-open range `[start, end)` of text that is markdown code. */
export interface CodeSpan {
  start: number;
  end: number;
}

const FENCE_OPENING = /[ ]{0,3}(`{3,}|~{3,})[^\n]*/y;

/** The fenced blocks and inline code spans of markdown text, in order; an unclosed fence runs to the end. */
export function findCodeSpans(text: string): CodeSpan[] {
  const spans: CodeSpan[] = [];
  let index = 0;
  while (index < text.length) {
    const atLineStart = index === 0 || text[index - 1] === "\n";
    const fenceEnd = atLineStart ? endOfFencedBlock(text, index) : null;
    if (fenceEnd !== null) {
      spans.push({ start: index, end: fenceEnd });
      index = fenceEnd;
    } else if (text[index] === "`") {
      const run = backtickRunLength(text, index);
      const closeEnd = endOfInlineCode(text, index + run, run);
      if (closeEnd !== null) spans.push({ start: index, end: closeEnd });
      // A run with no partner is literal text, so scanning resumes right after it.
      index = closeEnd ?? index + run;
    } else {
      index += 1;
    }
  }
  return spans;
}

/** Whether `index` falls inside one of the (sorted, disjoint) spans. */
export function isInsideCode(spans: readonly CodeSpan[], index: number): boolean {
  let low = 0;
  let high = spans.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const span = spans[middle];
    if (span === undefined) return false;
    if (index < span.start) high = middle - 1;
    else if (index >= span.end) low = middle + 1;
    else return true;
  }
  return false;
}

function endOfFencedBlock(text: string, lineStart: number): number | null {
  FENCE_OPENING.lastIndex = lineStart;
  const opening = FENCE_OPENING.exec(text);
  const fence = opening?.[1];
  if (opening === null || fence === undefined) return null;
  const marker = fence[0] === "`" ? "`" : "~";
  const closing = new RegExp(`\\n[ ]{0,3}${marker}{${fence.length},}[ \\t]*(?=\\n|$)`, "g");
  closing.lastIndex = lineStart + opening[0].length;
  const close = closing.exec(text);
  return close === null ? text.length : close.index + close[0].length;
}

function backtickRunLength(text: string, start: number): number {
  let end = start;
  while (text[end] === "`") end += 1;
  return end - start;
}

// CommonMark: an inline code span closes at the next backtick run of exactly the same length.
function endOfInlineCode(text: string, from: number, runLength: number): number | null {
  let search = from;
  for (;;) {
    const next = text.indexOf("`", search);
    if (next === -1) return null;
    const run = backtickRunLength(text, next);
    if (run === runLength) return next + run;
    search = next + run;
  }
}
