import type { SubagentItem, SubagentsArgs, SubagentsResult } from "../client/types";
import { numberFlag } from "./args";
import { type Command, output, refusal, required } from "./command";
import { cell, table, timeAgo } from "./format";
import { EXIT, UsageError } from "./io";
import { unavailable } from "./spawn";

const ACTIONS = ["list", "kill", "steer"] as const;
type Action = (typeof ACTIONS)[number];
const isAction = (value: string): value is Action => (ACTIONS as readonly string[]).includes(value);

function itemsTable(items: SubagentItem[]): string {
  const now = Date.now();
  return table(
    ["#", "status", "label", "started", "session"],
    items.map((item) => [
      String(item.index),
      item.status,
      cell(item.label ?? item.task ?? "", 40),
      item.startedAt ? timeAgo(item.startedAt, now) : "",
      item.sessionKey,
    ]),
  );
}

function resultText(result: SubagentsResult): string {
  if (result.status === "accepted") return `steered: ${result.sessionKey} restarted as run ${result.runId}`;
  if (result.status !== "ok") return "";
  if (result.action === "kill") return result.text;
  const sections = [
    result.active.length > 0 ? `active\n${itemsTable(result.active)}` : "",
    result.recent.length > 0 ? `recent\n${itemsTable(result.recent)}` : "",
  ].filter(Boolean);
  return sections.length > 0 ? sections.join("\n\n") : result.text;
}

export const subagentsCommand: Command = {
  name: "subagents",
  usage:
    "subagents [list] [--recent MIN] | subagents kill <target|all> | subagents steer <target> <message…>",
  summary: "list, stop or redirect the sub-agents the requester spawned (subagents)",
  details: `<target> is "last", a 1-based index from \`list\`, a child key, a label (or its prefix) or a runId prefix.
Options:
  --recent MIN   with list: finished runs of the last MIN minutes, default 30
Examples: switchboard subagents
          switchboard subagents steer q3 "Only look at October"
          switchboard subagents kill all`,
  flags: { recent: "string" },
  async run(ctx) {
    const action = ctx.positionals[0] ?? "list";
    if (!isAction(action)) throw new UsageError(`unknown action "${action}": list, kill or steer`);
    const recentMinutes = numberFlag(ctx.flags, "recent");
    const args: SubagentsArgs = { action, ...(recentMinutes !== undefined ? { recentMinutes } : {}) };
    if (action !== "list") args.target = required(ctx, 1, "target");
    if (action === "steer") {
      args.message = ctx.positionals.slice(2).join(" ");
      if (args.message.trim() === "") throw new UsageError("<message> required");
    }
    let result: SubagentsResult;
    try {
      result = await ctx.client.subagents(args);
    } catch (error) {
      const code = unavailable(ctx, error, "subagents");
      if (code !== undefined) return code;
      throw error;
    }
    const refused = refusal(ctx, result);
    if (refused !== undefined) return refused;
    if (result.status === "rate_limited") {
      output(ctx, result, () => "");
      ctx.io.stderr(`rate limited: ${result.error}\n`);
      return EXIT.failed;
    }
    output(ctx, result, () => resultText(result));
    return EXIT.ok;
  },
};
