import { formatRuntime, formatTokenCount, formatUsd } from "../text/units";

/**
 * `runtime <dur> • tokens <total> (in <in> / out <out>)`, plus `prompt/cache <n>` when total exceeds
 * in+out and OpenClaw's `est $<cost>` when the run has an estimated cost (its runtime has pricing);
 * `tokens unknown` for a run without usage (its model reported none, or it ended before answering).
 */
export function statsLine(
  runtimeMs: number,
  usage: { input: number; output: number; total: number; estimatedCostUsd?: number } | undefined,
): string {
  const runtime = `runtime ${formatRuntime(runtimeMs)}`;
  if (!usage) return `${runtime} • tokens unknown`;
  const cache = usage.total - usage.input - usage.output;
  return [
    runtime,
    `tokens ${formatTokenCount(usage.total)} (in ${formatTokenCount(usage.input)} / out ${formatTokenCount(usage.output)})`,
    ...(cache > 0 ? [`prompt/cache ${formatTokenCount(cache)}`] : []),
    ...(usage.estimatedCostUsd !== undefined ? [`est ${formatUsd(usage.estimatedCostUsd)}`] : []),
  ].join(" • ");
}
