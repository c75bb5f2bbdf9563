import type { SessionRow } from "../session/row";
import { PRODUCT_NAME, VERSION } from "../version";

/** Token counts as people read them: 999, 1.0k, 1.0m. */
export function formatCount(value: number): string {
  if (value < 1000) return String(value);
  if (value < 1_000_000) return `${(value / 1000).toFixed(1)}k`;
  return `${(value / 1_000_000).toFixed(1)}m`;
}

/** Durations as `Ns`, `MmSs`, `HhMm`. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m${seconds % 60}s`;
  return `${Math.floor(seconds / 3600)}h${Math.floor((seconds % 3600) / 60)}m`;
}

/** The compact status card of SPEC §5.7. */
export function statusCard(
  row: SessionRow,
  details: { modelOverridden: boolean; children: Record<string, number>; now: number },
): string {
  const active = details.children.running ?? 0;
  const recent = Object.entries(details.children)
    .filter(([status]) => status !== "running")
    .reduce((sum, [, n]) => sum + n, 0);
  const lines = [
    `${PRODUCT_NAME} ${VERSION}`,
    `Model: ${row.model ?? "default"}${details.modelOverridden ? " (session override)" : ""}`,
    `Tokens: ${formatCount(row.inputTokens ?? 0)} in / ${formatCount(row.outputTokens ?? 0)} out • context ${formatCount(row.contextTokens ?? 0)} used`,
    `Session: ${row.key} • last activity ${formatDuration(details.now - row.updatedAt)} ago`,
    `Runtime: ${row.runtimeMs !== undefined ? formatDuration(row.runtimeMs) : "none yet"} • thinking ${row.thinkingLevel ?? "default"}`,
    `Run: ${row.status === "running" ? "active" : "idle"}`,
    `Sub-agents: ${active} active, ${recent} recent`,
  ];
  return lines.join("\n");
}
