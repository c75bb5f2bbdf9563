/** Discord's limit on one message's content, in characters. */
export const DISCORD_LIMIT = 2000;

/**
 * Markdown as Discord shows it: Discord reads Markdown itself (headings, lists, code, links), so the
 * text goes as written. Mentions are kept from pinging by the post's `allowed_mentions`, not here.
 */
export const discordMarkdown = (markdown: string): string => markdown;
