import type { RunProgress, SubagentItem, SubagentsArgs, SubagentsResult } from "../../client/src/index";
import { numberFlag } from "./args";
import { type Command, output, refusal, required } from "./command";
import { cell, table, timeAgo } from "./format";
import { EXIT, UsageError } from "./io";
import { unavailable } from "./spawn";

const ACTIONS = ["list", "wait", "cancel", "kill", "steer"] as const;
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

function runsTable(runs: RunProgress[]): string {
  return table(
    ["run", "status", "delivery", "label", "session"],
    runs.map((run) => [run.runId, run.status, run.deliveryStatus, cell(run.label, 40), run.sessionKey]),
  );
}

function resultText(result: SubagentsResult): string {
  if (result.status === "accepted") return `steered: ${result.sessionKey} restarted as run ${result.runId}`;
  if (result.status !== "ok") return "";
  if (result.action === "kill" || result.action === "cancel") return result.text;
  if (result.action === "wait") {
    const unavailable = result.unavailable?.length ? `\nunavailable: ${result.unavailable.join(", ")}` : "";
    return `${result.reason}${result.runs.length > 0 ? `\n${runsTable(result.runs)}` : ""}${unavailable}`;
  }
  const sections = [
    result.active.length > 0 ? `active\n${itemsTable(result.active)}` : "",
    result.recent.length > 0 ? `recent\n${itemsTable(result.recent)}` : "",
  ].filter(Boolean);
  return sections.length > 0 ? sections.join("\n\n") : result.text;
}

export const subagentsCommand: Command = {
  name: "subagents",
  usage:
    "subagents [list] [--recent MIN] | subagents wait <runId…> [--timeout S] | subagents cancel <runId> | subagents kill <target|all> | subagents steer <target> <message…>",
  summary: "list, wait for, stop or redirect the sub-agents the requester spawned (subagents)",
  details: `<target> is "last", a 1-based index from \`list\`, a child key, a label (or its prefix) or a runId prefix.
Options:
  --recent MIN   with list: finished runs of the last MIN minutes, default 30
  --timeout S    with wait: give up after S seconds (0–60, default 30; 0 = a snapshot)
Examples: switchboard subagents
          switchboard subagents steer q3 "Only look at October"
          switchboard subagents wait 4f1c… 9a2b… --timeout 60
          switchboard subagents cancel 4f1c…
          switchboard subagents kill all`,
  flags: { recent: "string", timeout: "string" },
  async run(ctx) {
    const action = ctx.positionals[0] ?? "list";
    if (!isAction(action))
      throw new UsageError(`unknown action "${action}": list, wait, cancel, kill or steer`);
    const recentMinutes = numberFlag(ctx.flags, "recent");
    const timeoutSeconds = numberFlag(ctx.flags, "timeout");
    const args: SubagentsArgs = { action, ...(recentMinutes !== undefined ? { recentMinutes } : {}) };
    if (action === "wait") {
      required(ctx, 1, "runId");
      args.runIds = ctx.positionals.slice(1);
      if (timeoutSeconds !== undefined) args.timeoutSeconds = timeoutSeconds;
    } else if (action === "cancel") args.runId = required(ctx, 1, "runId");
    else if (action !== "list") args.target = required(ctx, 1, "target");
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
