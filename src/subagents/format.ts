import { formatRuntime, formatTokenCount } from "../text/units";

/** `runtime <dur> • tokens <total> (in <in> / out <out>)`, plus `prompt/cache <n>` when total exceeds in+out. */
export function statsLine(
  runtimeMs: number,
  usage: { input: number; output: number; total: number },
): string {
  const cache = usage.total - usage.input - usage.output;
  return [
    `runtime ${formatRuntime(runtimeMs)}`,
    `tokens ${formatTokenCount(usage.total)} (in ${formatTokenCount(usage.input)} / out ${formatTokenCount(usage.output)})`,
    ...(cache > 0 ? [`prompt/cache ${formatTokenCount(cache)}`] : []),
  ].join(" • ");
}
