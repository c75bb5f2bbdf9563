import type { CronDelivery, CronJob, CronJobInput, CronRun, CronSchedule } from "../../client/src/index";
import { stringFlag } from "./args";
import { type Command, type CommandContext, output, required } from "./command";
import { cell, clockTime, table } from "./format";
import { EXIT, UsageError } from "./io";

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `--every 30m` / `2h` / `1d` / `90000` (ms) in milliseconds; the server refuses under a minute. */
function everyMs(text: string): number {
  const match = /^(\d{1,12})(ms|[smhd]?)$/.exec(text.trim().toLowerCase());
  if (!match?.[1]) throw new UsageError(`--every must be a duration like 90s, 30m, 2h or 1d, not "${text}"`);
  const unit = match[2] || "ms";
  return Number(match[1]) * (unit === "ms" ? 1 : (UNIT_MS[unit] ?? 1));
}

/** `30m`, `2h`, `1d 6h`: an interval as a person writes it. */
function interval(ms: number): string {
  const parts: string[] = [];
  let rest = ms;
  for (const [unit, size] of [
    ["d", 86_400_000],
    ["h", 3_600_000],
    ["m", 60_000],
    ["s", 1000],
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  return parts.join(" ") || `${ms}ms`;
}

export function scheduleText(schedule: CronSchedule): string {
  if (schedule.kind === "every") return `every ${interval(schedule.everyMs)}`;
  const zone = schedule.tz ? ` (${schedule.tz})` : "";
  if (schedule.kind === "cron") return `${schedule.expr}${zone}`;
  return `at ${typeof schedule.at === "number" ? clockTime(schedule.at) : schedule.at}${zone}`;
}

function deliveryText(delivery: CronDelivery): string {
  if (delivery.mode === "none") return "none";
  if (delivery.mode === "webhook") return `webhook ${delivery.url}`;
  const where = [delivery.channel, delivery.to].filter(Boolean).join(" ");
  return where ? `announce ${where}` : "announce";
}

const when = (ms: number | null | undefined) => (ms === null || ms === undefined ? "—" : clockTime(ms));

function jobsText(jobs: CronJob[]): string {
  if (jobs.length === 0) return "no jobs";
  return table(
    ["job", "schedule", "target", "delivery", "next run", "last run"],
    jobs.map((job) => [
      `${job.jobId}${job.enabled ? "" : " (off)"}`,
      cell(scheduleText(job.schedule), 36),
      cell(job.sessionTarget, 30),
      cell(deliveryText(job.delivery), 30),
      when(job.nextRunAt),
      when(job.lastRunAt),
    ]),
  );
}

function jobText(job: CronJob): string {
  const payload =
    job.payload.kind === "agentTurn"
      ? `turn: ${job.payload.message}`
      : `system event${job.payload.wake === "now" ? " (wakes)" : ""}: ${job.payload.text}`;
  const lines: [string, string][] = [
    ["job", `${job.jobId} (${job.name}), agent ${job.agentId}, from ${job.source}`],
    ["enabled", job.enabled ? "yes" : "no"],
    ["schedule", scheduleText(job.schedule)],
    ["target", job.sessionTarget],
    ["payload", payload],
    ["delivery", deliveryText(job.delivery)],
    ["delete after run", job.deleteAfterRun ? "yes" : "no"],
    ["next run", when(job.nextRunAt)],
    ["last run", when(job.lastRunAt)],
  ];
  return lines.map(([name, value]) => `${`${name}:`.padEnd(18)}${value}`).join("\n");
}

function runsText(runs: CronRun[]): string {
  if (runs.length === 0) return "no runs yet";
  return table(
    ["scheduled", "status", "took", "delivery", "run"],
    runs.map((run) => [
      clockTime(run.scheduledAt),
      run.error ? `${run.status}: ${cell(run.error, 40)}` : run.status,
      run.durationMs === undefined ? "—" : interval(Math.max(1000, run.durationMs)),
      run.deliveryStatus ?? "—",
      run.runId,
    ]),
  );
}

/** A job or patch given whole as JSON (`--job '{…}'`). */
function jobJson(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {}
  throw new UsageError(
    '--job must be a JSON object, e.g. --job \'{"schedule":{"kind":"every","everyMs":3600000},…}\'',
  );
}

/** The job `cron add` describes with its flags (or `--job`, which the flags then amend). */
function jobFromFlags(ctx: CommandContext): CronJobInput {
  const flag = (name: string) => stringFlag(ctx.flags, name);
  const job: Record<string, unknown> = flag("job") ? jobJson(flag("job") ?? "") : {};
  const tz = flag("tz");
  const expr = flag("cron");
  const every = flag("every");
  const at = flag("at");
  if ([expr, every, at].filter(Boolean).length > 1)
    throw new UsageError("give one of --cron, --every and --at");
  if (expr) job.schedule = { kind: "cron", expr, ...(tz ? { tz } : {}) };
  else if (every) job.schedule = { kind: "every", everyMs: everyMs(every) };
  else if (at) job.schedule = { kind: "at", at, ...(tz ? { tz } : {}) };
  if (!job.schedule) throw new UsageError("a schedule is required: --cron EXPR, --every 30m or --at TIME");
  const message = flag("message");
  const event = flag("system-event");
  if (message && event) throw new UsageError("give one of --message and --system-event");
  if (message) job.payload = { kind: "agentTurn", message };
  if (event) job.payload = { kind: "systemEvent", text: event, ...(ctx.flags.wake ? { wake: "now" } : {}) };
  if (!job.payload)
    throw new UsageError("what the job does is required: --message TEXT or --system-event TEXT");
  const announce = flag("announce");
  const webhook = flag("webhook");
  if (announce) {
    const [channel, ...to] = announce.split(":");
    job.delivery = {
      mode: "announce",
      ...(channel ? { channel } : {}),
      ...(to.length ? { to: to.join(":") } : {}),
    };
  }
  if (webhook) job.delivery = { mode: "webhook", url: webhook };
  if (ctx.flags.silent) job.delivery = { mode: "none" };
  for (const [field, name] of [
    ["jobId", "id"],
    ["name", "name"],
    ["agentId", "agent"],
    ["sessionTarget", "target"],
  ] as const) {
    const value = flag(name);
    if (value) job[field] = value;
  }
  if (ctx.flags.keep) job.deleteAfterRun = false;
  if (ctx.flags.disabled) job.enabled = false;
  return job as unknown as CronJobInput;
}

/** `switchboard cron list|add|show|update|enable|disable|remove|run|runs` (SPEC §22). */
export const cronCommand: Command = {
  name: "cron",
  usage: "cron list|add|show|update|enable|disable|remove|run|runs [jobId] [options]",
  summary: "scheduled jobs: list, add, change, remove, run now, and their runs",
  details: `An agent token manages its own agent's jobs; the operator token names one with --agent.
  list                        the agent's jobs, with their next and last run
  add                         a job: one of --cron EXPR [--tz ZONE], --every 30m, --at TIME [--tz ZONE];
                              one of --message TEXT (a turn) or --system-event TEXT [--wake];
                              [--id ID] [--name NAME] [--target isolated|main|session:KEY]
                              [--announce CHANNEL[:TO] | --webhook URL | --silent] [--keep] [--disabled];
                              or the whole job as --job '{…}' (the flags amend it)
  show|runs|run|remove <id>   the job; its last runs; fire it now; remove it
  enable|disable <id>         turn it on or off
  update <id> --job '{…}'     change any field but its id and agent
Example: switchboard cron add --agent main --cron "0 9 * * 1-5" --tz Europe/Berlin \\
           --message "Summarize yesterday's deploys" --announce slack-ops:C0123OPS`,
  flags: {
    agent: "string",
    cron: "string",
    every: "string",
    at: "string",
    tz: "string",
    message: "string",
    "system-event": "string",
    wake: "boolean",
    id: "string",
    name: "string",
    target: "string",
    announce: "string",
    webhook: "string",
    silent: "boolean",
    keep: "boolean",
    disabled: "boolean",
    job: "string",
  },
  run: async (ctx) => {
    const action = ctx.positionals[0];
    const agent = stringFlag(ctx.flags, "agent");
    const query = agent ? { agentId: agent } : {};
    const cron = ctx.client.cron;
    if (action === "list") {
      const answer = await cron.list(query);
      output(ctx, answer, () => jobsText(answer.jobs));
      return EXIT.ok;
    }
    if (action === "add") {
      const job = await cron.add(jobFromFlags(ctx));
      output(
        ctx,
        job,
        () => `added ${job.jobId}: ${scheduleText(job.schedule)}, next run ${when(job.nextRunAt)}`,
      );
      return EXIT.ok;
    }
    const jobId = required(ctx, 1, "jobId");
    if (action === "show") {
      const job = await cron.get(jobId, query);
      output(ctx, job, () => jobText(job));
    } else if (action === "update" || action === "enable" || action === "disable") {
      const patch =
        action === "update" ? jobJson(stringFlag(ctx.flags, "job") ?? "") : { enabled: action === "enable" };
      const job = await cron.update(jobId, patch, query);
      output(
        ctx,
        job,
        () => `updated ${job.jobId}: ${job.enabled ? "on" : "off"}, next run ${when(job.nextRunAt)}`,
      );
    } else if (action === "remove") {
      const answer = await cron.remove(jobId, query);
      output(ctx, answer, () => `removed ${jobId}`);
    } else if (action === "run") {
      const answer = await cron.run(jobId, query);
      output(
        ctx,
        answer,
        () => `started ${jobId}: run ${answer.runId} (see: switchboard cron runs ${jobId})`,
      );
    } else if (action === "runs") {
      const answer = await cron.runs(jobId, query);
      output(ctx, answer, () => runsText(answer.runs));
    } else {
      throw new UsageError(
        `unknown action "${action ?? ""}": list, add, show, update, enable, disable, remove, run or runs`,
      );
    }
    return EXIT.ok;
  },
};
