import { type ImportMessage, NotFoundError } from "../../client/src/index";
import { stringFlag } from "./args";
import { type Command, note, output, required } from "./command";
import { EXIT, UsageError } from "./io";

/** The messages of a JSONL file, one JSON object per line; blank lines are skipped. */
function parseJsonl(text: string, file: string): ImportMessage[] {
  const messages: ImportMessage[] = [];
  for (const [index, line] of text.split("\n").entries()) {
    if (line.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new UsageError(`${file} line ${index + 1}: not JSON (one message object per line)`);
    }
    if (typeof value !== "object" || value === null || Array.isArray(value))
      throw new UsageError(`${file} line ${index + 1}: not a message object`);
    messages.push(value as ImportMessage);
  }
  if (messages.length === 0) throw new UsageError(`${file}: no messages`);
  return messages;
}

export const importCommand: Command = {
  name: "import",
  usage: "import <session> <file.jsonl>",
  summary: "import a JSONL transcript into a session (created when missing); idempotent by message id",
  details: `Each line is one message: { id, role, content, timestamp, … }, as \`export\` writes them.
Example: switchboard import agent:main:main transcript.jsonl`,
  flags: {},
  async run(ctx) {
    const sessionKey = required(ctx, 0, "session");
    const file = required(ctx, 1, "file.jsonl");
    let text: string;
    try {
      text = await ctx.io.readFile(file);
    } catch (error) {
      throw new UsageError(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
    }
    const messages = parseJsonl(text, file);
    let receipt: Awaited<ReturnType<typeof ctx.client.importTranscript>>;
    try {
      receipt = await ctx.client.importTranscript(sessionKey, messages);
    } catch (error) {
      if (!(error instanceof NotFoundError) || error.code !== "not_found") throw error;
      const created = await ctx.client.createSession({ key: sessionKey });
      note(ctx, `created session ${created.key}`);
      receipt = await ctx.client.importTranscript(created.key, messages);
    }
    output(
      ctx,
      receipt,
      () =>
        `imported ${receipt.imported} message(s), skipped ${receipt.skipped} already there; ${receipt.totalMessages} in total`,
    );
    return EXIT.ok;
  },
};

export const exportCommand: Command = {
  name: "export",
  usage: "export <session> [--out file.jsonl]",
  summary: "the exact transcript as JSONL, to stdout or a file",
  details: `Options:
  --out FILE   write to FILE instead of stdout
Example: switchboard export agent:main:main --out main.jsonl`,
  flags: { out: "string" },
  async run(ctx) {
    const sessionKey = required(ctx, 0, "session");
    const out = stringFlag(ctx.flags, "out");
    const jsonl = await ctx.client.exportTranscript(sessionKey);
    const count = jsonl.split("\n").filter((line) => line !== "").length;
    if (!out) {
      ctx.io.stdout(jsonl);
      return EXIT.ok;
    }
    await ctx.io.writeFile(out, jsonl);
    output(ctx, { file: out, messages: count }, () => "");
    note(ctx, `wrote ${count} message(s) to ${out}`);
    return EXIT.ok;
  },
};
