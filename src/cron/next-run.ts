import { Cron } from "croner";
import { parseAt } from "./at-time";
import type { Schedule } from "./job-schema";

/**
 * The first slot of a schedule strictly after `after` (ms), or undefined when it has none left. `anchor`
 * (the job's creation) fixes an `every` job's phase; `lastSlot` is the slot that ran last, so an `at` job
 * has one slot only. Cron expressions go to croner with their zone: a local time a DST change skips runs
 * at the next valid minute, a repeated one once.
 */
export function nextSlot(
  schedule: Schedule,
  after: number,
  anchor: number,
  lastSlot: number | undefined,
): number | undefined {
  switch (schedule.kind) {
    case "at": {
      const at = parseAt(schedule.at, schedule.tz);
      return at === undefined || lastSlot !== undefined ? undefined : at;
    }
    case "every": {
      const periods = Math.floor((after - anchor) / schedule.everyMs) + 1;
      return anchor + Math.max(1, periods) * schedule.everyMs;
    }
    case "cron": {
      const cron = new Cron(schedule.expr, {
        paused: true,
        ...(schedule.tz ? { timezone: schedule.tz } : {}),
      });
      return cron.nextRun(new Date(after))?.getTime();
    }
  }
}
