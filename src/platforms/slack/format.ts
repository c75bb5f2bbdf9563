import slackify from "slackify-markdown";

/** Slack's advised limit on one message's text (it truncates past 40,000), in characters. */
export const SLACK_LIMIT = 4000;

/** Markdown as Slack's mrkdwn (slackify-markdown: remark's parser; `&`, `<`, `>` escaped, links `<url|text>`). */
export function slackMrkdwn(markdown: string): string {
  return slackify(markdown).replace(/\n+$/, "");
}
