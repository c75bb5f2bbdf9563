import { type Command, output, required } from "./command";
import { EXIT } from "./io";

export const compactCommand: Command = {
  name: "compact",
  usage: "compact <session>",
  summary: "summarize a session's older turns now, keeping the newest verbatim (operator)",
  details: `The session's agent's model writes the summary its later prompts start from; the transcript
keeps every message. Exits 1 when nothing was compacted (the reason is printed; the session is as it was).
Example: switchboard compact agent:main:main`,
  flags: {},
  async run(ctx) {
    const sessionKey = required(ctx, 0, "session");
    const answer = await ctx.client.compact(sessionKey);
    output(ctx, answer, () =>
      answer.compacted
        ? `compacted ${sessionKey}: ${answer.summarizedMessages ?? 0} message(s) summarized, ${answer.keptMessages ?? 0} kept verbatim; ${answer.compactionCount} compaction(s) so far`
        : `not compacted: ${answer.reason ?? "no reason given"}`,
    );
    return answer.compacted ? EXIT.ok : EXIT.failed;
  },
};
