import type { MaintenanceEnforced, MaintenanceReport } from "../../client/src/index";
import { type Command, type CommandContext, note, output } from "./command";
import { byteSize, count, duration, table } from "./format";
import { EXIT, UsageError } from "./io";

/** Enforce calls at most this many batches in one invocation; what is left waits for the next one. */
const MAX_BATCHES = 500;

const plural = (n: number, one: string, many = `${one}s`) => `${count(n)} ${n === 1 ? one : many}`;

/** The storage report, per agent then per D1 shard. */
export function reportText(report: MaintenanceReport): string {
  const lines: string[] = [];
  for (const agent of report.agents) {
    lines.push(
      `agent ${agent.agentId}`,
      `  sessions        ${count(agent.sessions)}`,
      `  messages        ${count(agent.messages)}`,
      `  object storage  ${byteSize(agent.objectBytes)}`,
      `  would archive   ${plural(agent.wouldArchive, "idle session")}`,
      `  would delete    ${plural(agent.wouldDelete, "idle session")}`,
    );
    if (agent.largest.length > 0) {
      lines.push("  largest sessions");
      for (const { sessionKey, bytes } of agent.largest)
        lines.push(`    ${byteSize(bytes).padStart(8)}  ${sessionKey}`);
    }
    lines.push("");
  }
  lines.push("index database (D1), per shard");
  lines.push(
    table(
      ["shard", "size"],
      report.shards.map(({ shard, bytes }) => [shard, byteSize(bytes)]),
    ).replace(/^/gm, "  "),
  );
  return lines.join("\n");
}

const NONE: MaintenanceEnforced = {
  archived: 0,
  deleted: 0,
  skipped: 0,
  searchRows: 0,
  runIndexRows: 0,
  grants: 0,
};

function add(total: MaintenanceEnforced, report: MaintenanceReport): MaintenanceEnforced {
  const sum = { ...total };
  for (const agent of report.agents)
    for (const field of Object.keys(NONE) as (keyof MaintenanceEnforced)[])
      sum[field] += agent.enforced?.[field] ?? 0;
  return sum;
}

function enforcedText(done: MaintenanceEnforced): string {
  return [
    `${plural(done.deleted, "session")} deleted`,
    `${count(done.archived)} archived`,
    `${plural(done.searchRows, "search row")}`,
    `${plural(done.runIndexRows, "run index row")}`,
    `${plural(done.grants, "expired grant")} removed`,
    ...(done.skipped > 0 ? [`${count(done.skipped)} skipped (busy or in a run)`] : []),
  ].join(", ");
}

/** `--enforce`: bounded batches until the server says `done`, each one reported as it ends. */
async function enforce(ctx: CommandContext): Promise<number> {
  const started = Date.now();
  let total = NONE;
  for (let batch = 1; batch <= MAX_BATCHES; batch += 1) {
    const report = await ctx.client.maintenance({ mode: "enforce" });
    const before = total;
    total = add(total, report);
    const step = add(NONE, report);
    note(ctx, `batch ${batch}: ${enforcedText(step)}`);
    const finished = report.done !== false;
    // Sessions the objects refuse (busy again, a run in flight) stay due: with nothing else changed,
    // another batch would only ask them again.
    const changed = (Object.keys(NONE) as (keyof MaintenanceEnforced)[]).some(
      (field) => field !== "skipped" && total[field] !== before[field],
    );
    if (finished || !changed) {
      const ending = finished
        ? `done in ${duration(Date.now() - started)} (${plural(batch, "batch", "batches")})`
        : `stopped after ${plural(batch, "batch", "batches")}: the last one changed nothing; run again later`;
      output(ctx, { ...report, enforcedTotal: total }, () =>
        [`${ending}: ${enforcedText(total)}`, "", reportText(report)].join("\n"),
      );
      return finished ? EXIT.ok : EXIT.failed;
    }
  }
  note(ctx, `stopped after ${MAX_BATCHES} batches; run again to go on`);
  return EXIT.failed;
}

export const maintenanceCommand: Command = {
  name: "maintenance",
  usage: "maintenance [--dry-run | --enforce]",
  summary: "storage per agent and shard; --enforce applies the retention policy (operator)",
  details: `--dry-run (the default) reports each agent's sessions, kept messages, object storage, what its
retention policy (session.maintenance) would archive or delete now and its largest sessions, then each
index database shard's size. Nothing changes.
--enforce applies the policy in short batches (idle sessions deleted or archived, old search and run
index rows, expired grants) until nothing is due, printing each batch; it is safe to stop and run again.
Sessions with a run in flight are never deleted. Kinds whose policy says mode "warn" are only reported.
Examples:
  switchboard maintenance --dry-run
  switchboard maintenance --enforce`,
  flags: { "dry-run": "boolean", enforce: "boolean" },
  async run(ctx) {
    if (ctx.flags["dry-run"] === true && ctx.flags.enforce === true)
      throw new UsageError("--dry-run and --enforce exclude each other");
    if (ctx.positionals.length > 0) throw new UsageError(`unexpected argument "${ctx.positionals[0]}"`);
    if (ctx.flags.enforce === true) return enforce(ctx);
    const report = await ctx.client.maintenance({ mode: "dry-run" });
    output(ctx, report, () => `Storage (dry run: nothing changed)\n\n${reportText(report)}`);
    return EXIT.ok;
  },
};
