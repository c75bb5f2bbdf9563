/** `2026-03-01T09:00` or `2026-03-01 09:00:30.5`: a local time with no offset. */
const LOCAL_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?)?$/;
/** An ISO-8601 time that carries its own offset (`Z`, `+02:00`). */
const WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T[\d:.]+(?:Z|[+-]\d{2}:?\d{2})$/i;

/** How far `zone` is ahead of UTC at `instant`, in ms (Europe/Berlin in summer: 7,200,000). */
export function zoneOffsetMs(zone: string, instant: number): number {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone: zone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  }).formatToParts(new Date(instant));
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const local = Date.UTC(
    part("year"),
    part("month") - 1,
    part("day"),
    part("hour"),
    part("minute"),
    part("second"),
  );
  return local - Math.floor(instant / 1000) * 1000;
}

/**
 * An `at` schedule's instant (SPEC §22): epoch ms as given; an ISO-8601 time with an offset as it says;
 * one without, in `tz` (default UTC). A local time a DST change skips is read with the offset before
 * the change (02:30 on a spring-forward night is 03:30); a repeated one as its later occurrence.
 */
export function parseAt(at: string | number, tz?: string): number | undefined {
  if (typeof at === "number") return Number.isSafeInteger(at) && at >= 0 ? at : undefined;
  if (WITH_OFFSET.test(at)) {
    const parsed = Date.parse(at);
    return Number.isNaN(parsed) ? undefined : parsed;
  }
  const match = LOCAL_TIME.exec(at);
  if (!match) return undefined;
  const [, y, mo, d, h = "0", mi = "0", s = "0", ms = "0"] = match;
  const wall = Date.UTC(
    Number(y),
    Number(mo) - 1,
    Number(d),
    Number(h),
    Number(mi),
    Number(s),
    Number(ms.padEnd(3, "0")),
  );
  const check = new Date(wall);
  if (Number.isNaN(wall) || check.getUTCDate() !== Number(d) || check.getUTCMonth() !== Number(mo) - 1)
    return undefined;
  if (!tz) return wall;
  // The offset at the wall time read as UTC, then at the instant that gives: stable except in a gap.
  const first = wall - zoneOffsetMs(tz, wall);
  const second = wall - zoneOffsetMs(tz, first);
  return Math.max(first, second);
}
