import { isToolFailure, type SessionsSearchResult } from "../../client/src/index";
import { numberFlag, stringFlag } from "./args";
import { type Command, note, output, refusal, required } from "./command";
import { clockTime } from "./format";
import { EXIT, UsageError } from "./io";

/** Each hit as a `key  role  time  score` line and its snippet, indented. */
function hitsText(result: SessionsSearchResult): string {
  return result.results
    .map((hit) => {
      const snippet = hit.snippet
        .split("\n")
        .map((line) => `  ${line}`)
        .join("\n");
      return `${hit.sessionKey}  ${hit.role}  ${clockTime(hit.timestamp)}  score ${hit.score.toFixed(2)}\n${snippet}`;
    })
    .join("\n\n");
}

export const searchCommand: Command = {
  name: "search",
  usage: 'search "<query>" [--session K] [--limit N] [--role user|assistant] [--include-tools] [--cursor C]',
  summary: "search the transcripts you can see, best match first (sessions_search)",
  details: `Every word of the query must occur (exact words). Snippets are made safe like history.
Options:
  --session K        only session K (as everywhere, also the requester the search acts as)
  --limit N          hits per page, default 10, at most 25
  --role R           only user or only assistant messages
  --include-tools    also search tool results
  --cursor C         the next page (the cursor a truncated page prints)
Example: switchboard search "deploy failed" --limit 5`,
  flags: { limit: "string", role: "string", "include-tools": "boolean", cursor: "string" },
  async run(ctx) {
    const query = required(ctx, 0, "query");
    if (ctx.positionals.length > 1) throw new UsageError('quote the query: search "<words…>"');
    const role = stringFlag(ctx.flags, "role");
    if (role !== undefined && role !== "user" && role !== "assistant")
      throw new UsageError(`--role must be user or assistant, not "${role}"`);
    const sessionKey = stringFlag(ctx.flags, "session");
    const limit = numberFlag(ctx.flags, "limit");
    const cursor = stringFlag(ctx.flags, "cursor");
    const result = await ctx.client.sessionsSearch({
      query,
      ...(sessionKey ? { sessionKey } : {}),
      ...(limit !== undefined ? { limit } : {}),
      ...(role ? { role } : {}),
      ...(ctx.flags["include-tools"] === true ? { includeTools: true } : {}),
      ...(cursor ? { cursor } : {}),
    });
    if (isToolFailure(result)) return refusal(ctx, result) ?? EXIT.failed;
    output(ctx, result, () => hitsText(result));
    if (result.results.length === 0) note(ctx, "no matches");
    if (result.warning) note(ctx, result.warning);
    if (result.nextCursor) note(ctx, `(more: --cursor ${result.nextCursor})`);
    return EXIT.ok;
  },
};
