import { formatLines, segmentsOf } from "../markdown";

/** Telegram's limit on one message's text (after entities are parsed), in characters. */
export const TELEGRAM_LIMIT = 4096;

/** Every character MarkdownV2 reserves, escaped (Bot API "MarkdownV2 style"). */
const escaped = (text: string) => text.replace(/[_*[\]()~`>#+\-=|{}.!\\]/g, "\\$&");
/** Inside code only `` ` `` and `\` are escaped; inside a link's URL only `)` and `\`. */
const inCode = (text: string) => text.replace(/[`\\]/g, "\\$&");
const inUrl = (url: string) => url.replace(/[)\\]/g, "\\$&");

const INLINE_V2 = {
  text: escaped,
  link: (text: string, url: string) => `[${escaped(text)}](${inUrl(url)})`,
  bold: (inner: string) => `*${escaped(inner)}*`,
  italic: (inner: string) => `_${escaped(inner)}_`,
  strike: (inner: string) => `~${escaped(inner)}~`,
};

/**
 * Markdown as Telegram's MarkdownV2: bold, italic, strike-through, links and code kept, headings bold,
 * bullets `•`, every other reserved character escaped. What Telegram still refuses goes plain (send.ts).
 */
export function telegramMarkdown(markdown: string): string {
  return segmentsOf(markdown)
    .map((segment) =>
      segment.kind === "code_block"
        ? `\`\`\`${segment.lang}\n${inCode(segment.body)}\n\`\`\``
        : segment.kind === "code"
          ? `\`${inCode(segment.body)}\``
          : formatLines(segment.text, INLINE_V2),
    )
    .join("");
}
