import { describe, expect, it } from "vitest";
import { parseAt } from "../../src/cron/at-time";
import { completeJob, jobInputSchema } from "../../src/cron/job-schema";
import { nextSlot } from "../../src/cron/next-run";
import { describeZodError } from "../../src/validation";

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());
const at = (text: string) => Date.parse(text);

/** The first `count` slots after `from`. */
function slots(
  schedule: Parameters<typeof nextSlot>[0],
  from: string,
  count: number,
): (string | undefined)[] {
  const out: (string | undefined)[] = [];
  let after = at(from);
  for (let i = 0; i < count; i++) {
    const next = nextSlot(schedule, after, 0, undefined);
    out.push(iso(next));
    if (next === undefined) break;
    after = next;
  }
  return out;
}

function refusal(input: unknown): string {
  const parsed = jobInputSchema.safeParse(input, { reportInput: true });
  if (parsed.success) throw new Error("accepted");
  return describeZodError(parsed.error);
}

describe("next firing time (SPEC §22, croner)", () => {
  it("a local time skipped by spring-forward runs once at the next valid minute (America/New_York)", () => {
    // 2026-03-08: 02:00 EST jumps to 03:00 EDT, so 02:30 does not exist that night.
    expect(
      slots({ kind: "cron", expr: "30 2 * * *", tz: "America/New_York" }, "2026-03-07T00:00:00Z", 3),
    ).toEqual([
      "2026-03-07T07:30:00.000Z", // 02:30 EST
      "2026-03-08T07:00:00.000Z", // 03:00 EDT: the next valid minute, once
      "2026-03-09T06:30:00.000Z", // 02:30 EDT
    ]);
  });

  it("a local time repeated by fall-back runs once (Europe/Berlin)", () => {
    // 2026-10-25: 03:00 CEST falls back to 02:00 CET, so 02:30 happens twice; the job runs at the first.
    expect(
      slots({ kind: "cron", expr: "30 2 * * *", tz: "Europe/Berlin" }, "2026-10-24T12:00:00Z", 2),
    ).toEqual([
      "2026-10-25T00:30:00.000Z", // 02:30 CEST
      "2026-10-26T01:30:00.000Z", // the next day's 02:30 CET: the repeated 02:30 is skipped
    ]);
  });

  it("without a zone a cron expression is UTC; every keeps its phase from its anchor; at has one slot", () => {
    expect(slots({ kind: "cron", expr: "0 9 * * 1-5" }, "2026-11-27T10:00:00Z", 2)).toEqual([
      "2026-11-30T09:00:00.000Z",
      "2026-12-01T09:00:00.000Z",
    ]);
    const every = { kind: "every", everyMs: 3_600_000 } as const;
    expect(iso(nextSlot(every, at("2026-01-01T05:10:00Z"), at("2026-01-01T00:30:00Z"), undefined))).toBe(
      "2026-01-01T05:30:00.000Z",
    );
    const once = { kind: "at", at: "2026-01-01T09:00:00" } as const;
    expect(iso(nextSlot(once, 0, 0, undefined))).toBe("2026-01-01T09:00:00.000Z");
    expect(nextSlot(once, 0, 0, at("2026-01-01T09:00:00Z"))).toBeUndefined();
  });

  it("an at time without an offset is UTC unless a zone is given; one with an offset is as it says", () => {
    expect(iso(parseAt("2026-07-01T09:00:00"))).toBe("2026-07-01T09:00:00.000Z");
    expect(iso(parseAt("2026-07-01T09:00:00", "Europe/Berlin"))).toBe("2026-07-01T07:00:00.000Z");
    expect(iso(parseAt("2026-01-01T09:00", "America/New_York"))).toBe("2026-01-01T14:00:00.000Z");
    expect(iso(parseAt("2026-07-01T09:00:00+02:00", "America/New_York"))).toBe("2026-07-01T07:00:00.000Z");
    expect(parseAt(1_780_000_000_000)).toBe(1_780_000_000_000);
    expect(parseAt("2026-02-30T09:00")).toBeUndefined();
    expect(parseAt("tomorrow")).toBeUndefined();
  });
});

describe("job input (SPEC §22 bad input names the field)", () => {
  const turn = { kind: "agentTurn", message: "summarize the deploys" };

  it("refuses an invalid expression, zone, interval under a minute, time, target", () => {
    expect(refusal({ schedule: { kind: "cron", expr: "61 * * * *" }, payload: turn })).toMatch(
      /^schedule\.expr: /,
    );
    expect(refusal({ schedule: { kind: "cron", expr: "* * * * * *" }, payload: turn })).toBe(
      "schedule.expr: must have five fields (minute hour day month weekday)",
    );
    expect(
      refusal({ schedule: { kind: "cron", expr: "0 9 * * *", tz: "Mars/Olympus" }, payload: turn }),
    ).toBe("schedule.tz: unknown IANA time zone");
    expect(refusal({ schedule: { kind: "every", everyMs: 59_999 }, payload: turn })).toBe(
      "schedule.everyMs: at least 60000 (one minute)",
    );
    expect(refusal({ schedule: { kind: "at", at: "soon" }, payload: turn })).toBe(
      "schedule.at: not an ISO-8601 time or epoch milliseconds",
    );
    expect(
      refusal({ schedule: { kind: "every", everyMs: 60_000 }, payload: turn, sessionTarget: "chat" }),
    ).toBe('sessionTarget: must be "isolated", "main" or "session:<key>"');
    expect(refusal({ schedule: { kind: "every", everyMs: 60_000 } })).toBe("payload required");
  });

  it("defaults: isolated, announce for isolated runs, deleteAfterRun for at jobs only", () => {
    const once = jobInputSchema.parse({ schedule: { kind: "at", at: 1_780_000_000_000 }, payload: turn });
    expect(completeJob(once, "remind", "main")).toEqual({
      jobId: "remind",
      name: "remind",
      agentId: "main",
      enabled: true,
      schedule: { kind: "at", at: 1_780_000_000_000 },
      sessionTarget: "isolated",
      payload: turn,
      delivery: { mode: "announce" },
      deleteAfterRun: true,
    });
    const daily = jobInputSchema.parse({
      schedule: { kind: "cron", expr: "0 9 * * *", tz: "Europe/Berlin" },
      sessionTarget: "main",
      payload: turn,
    });
    expect(completeJob(daily, "daily", "main")).toMatchObject({
      delivery: { mode: "none" },
      deleteAfterRun: false,
    });
  });
});
