/**
 * Markdown read just far enough to convert it per platform (SPEC §21): code (fenced and inline) apart
 * from text, whose links and emphasis each platform's format.ts rewrites. By hand, not remark: the
 * converters with a full parser (telegramify-markdown, slackify-markdown) added 750 KB to the Worker.
 */

/** A piece of a Markdown text: a fenced code block, inline code, or text between them. */
export type Segment =
  | { kind: "code_block"; lang: string; body: string }
  | { kind: "code"; body: string }
  | { kind: "text"; text: string };

const CODE = /```([^\n`]*)\n([\s\S]*?)\n?```|`([^`\n]+)`/g;

/** The text's code and the text around it, in order. */
export function segmentsOf(markdown: string): Segment[] {
  const segments: Segment[] = [];
  let at = 0;
  for (const match of markdown.matchAll(CODE)) {
    if (match.index > at) segments.push({ kind: "text", text: markdown.slice(at, match.index) });
    segments.push(
      match[3] !== undefined
        ? { kind: "code", body: match[3] }
        : { kind: "code_block", lang: (match[1] ?? "").trim(), body: match[2] ?? "" },
    );
    at = match.index + match[0].length;
  }
  if (at < markdown.length) segments.push({ kind: "text", text: markdown.slice(at) });
  return segments;
}

/**
 * Links, then bold (`**`/`__`), italic (`*`/`_`) and strike-through (`~~`), in one pass so a marker
 * written for one is never read again as another. Groups: 1 link text, 2 link url, 3 the bold marker,
 * 4 bold, 5 and 6 italic, 7 strike-through.
 */
export const INLINE =
  /\[([^\]\n]+)\]\(([^)\s]+)\)|(\*\*|__)(?=\S)(.+?)(?<=\S)\3|(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])|(?<![\w_])_(?=\S)([^_\n]+?)(?<=\S)_(?![\w_])|~~(?=\S)(.+?)(?<=\S)~~/g;

/** What a platform makes of each inline element and of the text between them. */
export interface InlineFormat {
  text(plain: string): string;
  link(text: string, url: string): string;
  bold(inner: string): string;
  italic(inner: string): string;
  strike(inner: string): string;
}

/** One line of text with its inline elements rewritten by `format`. */
export function formatInline(line: string, format: InlineFormat): string {
  let out = "";
  let at = 0;
  for (const match of line.matchAll(INLINE)) {
    out += format.text(line.slice(at, match.index));
    if (match[1] !== undefined) out += format.link(match[1], match[2] ?? "");
    else if (match[4] !== undefined) out += format.bold(match[4]);
    else if (match[5] !== undefined || match[6] !== undefined)
      out += format.italic(match[5] ?? match[6] ?? "");
    else out += format.strike(match[7] ?? "");
    at = match.index + match[0].length;
  }
  return out + format.text(line.slice(at));
}

/** Text line by line: a heading becomes bold, a list bullet `•`; the rest formatted inline. */
export function formatLines(text: string, format: InlineFormat): string {
  return text
    .split("\n")
    .map((line) => {
      const heading = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
      if (heading) return format.bold(heading[1] ?? "");
      const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(line);
      if (bullet) return `${bullet[1]}• ${formatInline(bullet[2] ?? "", format)}`;
      return formatInline(line, format);
    })
    .join("\n");
}
