/**
 * Splitting a long reply into parts a platform takes (SPEC §21: Telegram 4,096 characters, Discord 2,000,
 * Slack 4,000), on paragraph and code-block boundaries. Lengths are UTF-16 code units, which is what the
 * platforms count (or more than they count), and a cut never falls inside a surrogate pair.
 */

/** A paragraph (lines up to a blank line) or a fenced code block, with the line breaks before the next. */
type Block = { text: string; code?: { open: string; close: string }; gap: string };

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const blank = (line: string | undefined) => (line ?? "").trim() === "";

/** A closing fence of `fence`: only its character, at least as many (CommonMark). */
const closes = (line: string, fence: string) => {
  const trimmed = line.trim();
  return trimmed.length >= fence.length && trimmed === (fence[0] ?? "`").repeat(trimmed.length);
};

/** The text as blocks, in order; each block's text then its gap, joined, give the text back (trimmed). */
function blocksOf(text: string): Block[] {
  const lines = text.split("\n");
  const spans: { start: number; end: number; code?: { open: string; close: string } }[] = [];
  let at = 0;
  while (at < lines.length) {
    const line = lines[at] ?? "";
    if (blank(line)) {
      at++;
      continue;
    }
    const start = at++;
    const fence = FENCE.exec(line)?.[1];
    if (fence) {
      while (at < lines.length && !closes(lines[at] ?? "", fence)) at++;
      const closed = at < lines.length;
      if (closed) at++;
      spans.push({
        start,
        end: at,
        code: { open: line, close: closed ? (lines[at - 1] ?? "").trim() : fence },
      });
    } else {
      while (at < lines.length && !blank(lines[at]) && !FENCE.test(lines[at] ?? "")) at++;
      spans.push({ start, end: at });
    }
  }
  return spans.map((span, index) => ({
    text: lines.slice(span.start, span.end).join("\n"),
    ...(span.code ? { code: span.code } : {}),
    gap: "\n".repeat((spans[index + 1]?.start ?? span.end) - span.end + 1),
  }));
}

/** Moves a cut back off the second half of a surrogate pair. */
const safeCut = (text: string, cut: number) => {
  const code = text.charCodeAt(cut - 1);
  return cut > 1 && code >= 0xd800 && code <= 0xdbff ? cut - 1 : cut;
};

/** Where to cut `text` at most `limit` long: after its last sentence, else at its last space, else hard. */
function cutAt(text: string, limit: number): number {
  const head = text.slice(0, limit + 1);
  let sentence = 0;
  for (const match of head.matchAll(/[.!?…。][)"'”’\]]*(?=\s)|\n/g))
    if (match.index + match[0].length <= limit) sentence = match.index + match[0].length;
  if (sentence > 0) return sentence;
  const space = head.search(/\s\S*$/);
  if (space > 0) return space;
  return safeCut(text, limit);
}

/** A paragraph longer than `limit`, in pieces at sentence or word boundaries (the cut whitespace dropped). */
function paragraphPieces(text: string, limit: number): string[] {
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    const cut = cutAt(rest, limit);
    pieces.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut).trimStart();
  }
  if (rest) pieces.push(rest);
  return pieces;
}

/** A code block longer than `limit`, in pieces by lines, each closed and the next reopened with its fence. */
function codePieces(block: Block & { code: { open: string; close: string } }, limit: number): string[] {
  const { open, close } = block.code;
  const budget = limit - open.length - close.length - 2;
  if (budget < 1) return paragraphPieces(block.text, limit);
  const inner = block.text.split("\n").slice(1);
  if (inner.at(-1)?.trim() === close) inner.pop();
  const chunks: string[] = [];
  let current: string | undefined;
  for (const line of inner) {
    const joined = current === undefined ? line : `${current}\n${line}`;
    if (joined.length <= budget) {
      current = joined;
      continue;
    }
    if (current !== undefined) chunks.push(current);
    current = undefined;
    let rest = line;
    // A line longer than the budget is cut hard: inside code, every character counts.
    while (rest.length > budget) {
      const cut = safeCut(rest, budget);
      chunks.push(rest.slice(0, cut));
      rest = rest.slice(cut);
    }
    current = rest;
  }
  if (current !== undefined) chunks.push(current);
  return chunks.map((chunk) => `${open}\n${chunk}\n${close}`);
}

/**
 * The text in parts of at most `limit` characters, in order: whole paragraphs and code blocks packed
 * together while they fit; a code block too long is closed and reopened across parts, a paragraph too
 * long is cut at its last sentence (else word) boundary before the limit. Only whitespace at the cuts is
 * dropped (and the fences that close and reopen a code block added).
 */
export function splitMessage(text: string, limit: number): string[] {
  if (text.length <= limit) return [text];
  const parts: string[] = [];
  let current = "";
  let gap = "";
  for (const block of blocksOf(text)) {
    const pieces =
      block.text.length <= limit
        ? [block.text]
        : block.code
          ? codePieces({ ...block, code: block.code }, limit)
          : paragraphPieces(block.text, limit);
    for (const [index, piece] of pieces.entries()) {
      const joined = current ? `${current}${index === 0 ? gap : "\n"}${piece}` : piece;
      // The pieces of one long block each start a part: they are cut at the limit already.
      if (joined.length <= limit && (index === 0 || !current)) current = joined;
      else {
        if (current) parts.push(current);
        current = piece;
      }
    }
    gap = block.gap || "\n";
  }
  if (current) parts.push(current);
  return parts;
}
