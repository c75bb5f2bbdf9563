import { z } from "zod";
import { JOB_ID_PATTERN, jobInputShape } from "./job-schema";

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const DURATION = /^(\d+)(ms|s|m|h|d)$/;

/** `24h`, `30m`, `7d` (or a number of ms) as milliseconds. */
const duration = z
  .union([
    z.number().int().nonnegative(),
    z.string().trim().regex(DURATION, 'a duration such as "24h", "30m" or "7d"'),
  ])
  .transform((value) => {
    if (typeof value === "number") return value;
    const [, amount = "0", unit = "ms"] = DURATION.exec(value) ?? [];
    return Number(amount) * UNIT_MS[unit as keyof typeof UNIT_MS];
  });

/** A job of `cron.jobs`: its id and agent named, as the scheduler keeps it in step with the file. */
export const configJobSchema = z.strictObject({
  ...jobInputShape,
  jobId: z.string().trim().toLowerCase().regex(JOB_ID_PATTERN, "lower-case letters, digits, _ and -"),
  agentId: z.string().trim().toLowerCase().min(1),
});
export type ConfigJob = z.infer<typeof configJobSchema>;

/** `cron` (SPEC §22): the configured jobs, and how long an isolated run's session outlives its run. */
export const cronConfigSchema = z.strictObject({
  jobs: z.array(configJobSchema).default([]),
  /** ms (given as `24h`, `30m`…): isolated run sessions are deleted this long after their run ends. */
  sessionRetention: duration.default(86_400_000),
});
