import type { SessionRow } from "../session/api";
import { formatRuntime, formatTokenCount } from "../text/units";
import { PRODUCT_NAME, VERSION } from "../version";

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
    `Tokens: ${formatTokenCount(row.inputTokens ?? 0)} in / ${formatTokenCount(row.outputTokens ?? 0)} out • context ${formatTokenCount(row.totalTokens ?? 0)}/${formatTokenCount(row.contextTokens ?? 0)}`,
    `Session: ${row.key} • last activity ${formatRuntime(details.now - row.updatedAt)} ago`,
    `Runtime: ${row.runtimeMs !== undefined ? formatRuntime(row.runtimeMs) : "none yet"} • thinking ${row.thinkingLevel ?? "default"}`,
    `Run: ${row.status === "running" ? "active" : "idle"}`,
    `Sub-agents: ${active} active, ${recent} recent`,
  ];
  return lines.join("\n");
}
