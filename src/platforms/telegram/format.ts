import telegramify from "telegramify-markdown";

/** Telegram's limit on one message's text (after entities are parsed), in characters. */
export const TELEGRAM_LIMIT = 4096;

/**
 * Markdown as Telegram's MarkdownV2 (telegramify-markdown: remark's parser, every reserved character
 * escaped, what MarkdownV2 cannot show escaped rather than dropped).
 */
export function telegramMarkdown(markdown: string): string {
  return telegramify(markdown, "escape").replace(/\n+$/, "");
}
