import { describe, expect, it } from "vitest";
import { slackMrkdwn } from "../../src/platforms/slack/format";
import { telegramMarkdown } from "../../src/platforms/telegram/format";

const reply = [
  "## Results",
  "",
  "- **3** passed, *1* skipped",
  "- see [the run](https://ci.example.com/r?id=1&x=2)",
  "",
  "Run `a < b && c` then:",
  "```sh",
  "echo 'x > y' && exit 1",
  "```",
].join("\n");

describe("Markdown per platform (SPEC §21)", () => {
  it("Telegram MarkdownV2: headings bold, bullets, emphasis, links, code; the rest escaped", () => {
    expect(telegramMarkdown(reply)).toBe(
      [
        "*Results*",
        "",
        "• *3* passed, _1_ skipped",
        "• see [the run](https://ci.example.com/r?id=1&x=2)",
        "",
        "Run `a < b && c` then:",
        "```sh",
        "echo 'x > y' && exit 1",
        "```",
      ].join("\n"),
    );
    expect(telegramMarkdown("snake_case_name costs $1.50 (approx.) #1 + tax = {total}!")).toBe(
      "snake\\_case\\_name costs $1\\.50 \\(approx\\.\\) \\#1 \\+ tax \\= \\{total\\}\\!",
    );
  });

  it("Slack mrkdwn: single-asterisk bold, underscore italic, <url|text> links, & < > escaped", () => {
    expect(slackMrkdwn(reply)).toBe(
      [
        "*Results*",
        "",
        "• *3* passed, _1_ skipped",
        "• see <https://ci.example.com/r?id=1&x=2|the run>",
        "",
        "Run `a &lt; b &amp;&amp; c` then:",
        "```",
        "echo 'x &gt; y' &amp;&amp; exit 1",
        "```",
      ].join("\n"),
    );
  });
});
