/** What an agent spent on one UTC day (SPEC §20 budgets), as its agent object counts it. */
export interface DailySpend {
  /** The UTC day, `YYYY-MM-DD`. */
  day: string;
  /** Tokens of the day's ended runs (each run's `usage.total`). */
  tokens: number;
  /** Their estimated cost in USD (`usage.estimatedCostUsd`; a run without pricing adds 0). */
  costUsd: number;
  /** How many runs reported usage that day. */
  runs: number;
}

/** One ended run's usage, reported once by its session (the outbox retries; the runId dedupes). */
export interface UsageReport {
  runId: string;
  day: string;
  tokens: number;
  costUsd: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** The UTC day of an instant, `YYYY-MM-DD`: days compare as strings. */
export function utcDay(at: number): string {
  return new Date(at).toISOString().slice(0, 10);
}

/** The UTC day `days` before (negative: after) the day of `at`. */
export function utcDayBefore(at: number, days: number): string {
  return utcDay(at - days * DAY_MS);
}
