import { formatLines, segmentsOf } from "../markdown";

/** Slack's advised limit on one message's text (it truncates past 40,000), in characters. */
export const SLACK_LIMIT = 4000;

/** The three characters Slack's text must escape (its "Formatting text" guide). */
const escaped = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

const MRKDWN = {
  text: escaped,
  link: (text: string, url: string) => `<${url}|${escaped(text)}>`,
  bold: (inner: string) => `*${escaped(inner)}*`,
  italic: (inner: string) => `_${escaped(inner)}_`,
  strike: (inner: string) => `~${escaped(inner)}~`,
};

/** Markdown as Slack's mrkdwn: single-asterisk bold, `<url|text>` links, headings bold, bullets `•`. */
export function slackMrkdwn(markdown: string): string {
  return segmentsOf(markdown)
    .map((segment) =>
      segment.kind === "code_block"
        ? `\`\`\`\n${escaped(segment.body)}\n\`\`\``
        : segment.kind === "code"
          ? `\`${escaped(segment.body)}\``
          : formatLines(segment.text, MRKDWN),
    )
    .join("");
}
