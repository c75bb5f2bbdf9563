/** Counts as people read them: under 1000 verbatim, then `1.0k`, `1.0m` (SPEC §5.4). */
export function formatTokenCount(value: number): string {
  if (value < 1000) return String(value);
  if (value < 1_000_000) return `${(value / 1000).toFixed(1)}k`;
  return `${(value / 1_000_000).toFixed(1)}m`;
}

/** Dollars as OpenClaw's stats line shows them: cents from $0.01 up, else four decimals (`$0.0042`). */
export function formatUsd(value: number): string {
  return `$${value.toFixed(value >= 0.01 ? 2 : 4)}`;
}

/** Durations as `Ns`, `MmSs`, `HhMm` (SPEC §5.4). */
export function formatRuntime(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m${seconds % 60}s`;
  return `${Math.floor(seconds / 3600)}h${Math.floor((seconds % 3600) / 60)}m`;
}

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** How long ago, as a person says it: `just now`, `3 min ago`, `5 h ago`, `2 days ago` (whole units, floored). */
export function formatAgo(ms: number): string {
  if (ms < MINUTE_MS) return "just now";
  if (ms < HOUR_MS) return `${Math.floor(ms / MINUTE_MS)} min ago`;
  if (ms < DAY_MS) return `${Math.floor(ms / HOUR_MS)} h ago`;
  const days = Math.floor(ms / DAY_MS);
  return `${days} ${days === 1 ? "day" : "days"} ago`;
}

/** How far ahead, as a person says it: `in under a minute`, `in 3 min`, `in 5 h`, `in 2 days` (floored). */
export function formatAhead(ms: number): string {
  if (ms < MINUTE_MS) return "in under a minute";
  if (ms < HOUR_MS) return `in ${Math.floor(ms / MINUTE_MS)} min`;
  if (ms < DAY_MS) return `in ${Math.floor(ms / HOUR_MS)} h`;
  const days = Math.floor(ms / DAY_MS);
  return `in ${days} ${days === 1 ? "day" : "days"}`;
}
