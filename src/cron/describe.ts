import type { CronDelivery, Schedule } from "./job-schema";

const UNITS = [
  ["d", 86_400_000],
  ["h", 3_600_000],
  ["m", 60_000],
  ["s", 1000],
] as const;

/** `every 30m`, `every 1d 6h`: an interval as a person writes it. */
function interval(ms: number): string {
  const parts: string[] = [];
  let rest = ms;
  for (const [unit, size] of UNITS)
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  return parts.join(" ") || `${ms}ms`;
}

/** A schedule in one line (the console's): `0 9 * * 1-5 (Europe/Berlin)`, `every 30m`, `at 2026-12-01T09:00`. */
export function describeSchedule(schedule: Schedule): string {
  if (schedule.kind === "every") return `every ${interval(schedule.everyMs)}`;
  const zone = schedule.tz ? ` (${schedule.tz})` : "";
  if (schedule.kind === "cron") return `${schedule.expr}${zone}`;
  const at = typeof schedule.at === "number" ? new Date(schedule.at).toISOString() : schedule.at;
  return `at ${at}${zone}`;
}

/** Where a job's outcome goes, in one line: `announce slack-ops C0123`, `webhook https://…`, `none`. */
export function describeDelivery(delivery: CronDelivery): string {
  if (delivery.mode === "none") return "none";
  if (delivery.mode === "webhook") return `webhook ${delivery.url}`;
  const where = [delivery.channel, delivery.to].filter(Boolean).join(" ");
  return where ? `announce ${where}` : "announce";
}
