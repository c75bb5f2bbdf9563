import type { AgentsWaitResult } from "../../client/src/index";
import { numberFlag } from "./args";
import { type Command, note, output } from "./command";
import { cell, table } from "./format";
import { EXIT, UsageError } from "./io";
import { unavailable } from "./spawn";

/** Each result as a row (its structured result as JSON, else the first line of its text). */
function completedTable(result: AgentsWaitResult): string {
  return table(
    ["run", "status", "label", "result"],
    result.completed.map((item) => [
      item.runId,
      item.status,
      cell(item.label ?? "", 30),
      cell(
        item.structured !== undefined
          ? JSON.stringify(item.structured)
          : ((item.error ?? item.result).split("\n")[0] ?? ""),
        60,
      ),
    ]),
  );
}

function waitText(result: AgentsWaitResult): string {
  const lines = [result.completed.length > 0 ? completedTable(result) : "nothing completed yet"];
  if (result.pending.length > 0) lines.push(`pending: ${result.pending.join(", ")}`);
  for (const error of result.errors ?? []) lines.push(`${error.runId}: ${error.error}`);
  if (result.omitted?.length) lines.push(`left out (too large; ask again): ${result.omitted.join(", ")}`);
  return lines.join("\n");
}

export const agentsWaitCommand: Command = {
  name: "agents-wait",
  usage: "agents-wait <runId…> [--timeout S]",
  summary: "collect the results of collector sub-agents by run id, waiting for the first (agents_wait)",
  details: `Collectors (spawn --collect) announce nothing: their results are kept for you, 7 days.
Options:
  --timeout S   give up waiting after S seconds (default 30, at most tools.swarm.waitTimeoutSecondsMax;
                0 = a snapshot)
Example: switchboard agents-wait 4f1c… 9a2b… --timeout 120`,
  flags: { timeout: "string" },
  async run(ctx) {
    if (ctx.positionals.length === 0) throw new UsageError("<runId> required");
    const timeoutSeconds = numberFlag(ctx.flags, "timeout");
    let result: AgentsWaitResult;
    try {
      result = await ctx.client.agentsWait({
        ids: ctx.positionals,
        ...(timeoutSeconds !== undefined ? { timeoutSeconds } : {}),
      });
    } catch (error) {
      const code = unavailable(ctx, error, "agents_wait");
      if (code !== undefined) return code;
      throw error;
    }
    output(ctx, result, () => waitText(result));
    if (result.success === false) {
      note(ctx, "none of these runs is a collector you spawned");
      return EXIT.failed;
    }
    return EXIT.ok;
  },
};
