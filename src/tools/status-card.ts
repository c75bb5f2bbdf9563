import type { SessionRow } from "../session/api";
import { formatAgo, formatRuntime, formatTokenCount, formatUsd } from "../text/units";
import { PRODUCT_NAME, VERSION } from "../version";

/**
 * What the card shows of a session. A session never written (SPEC §12: the requester's own, or its
 * agent's main) has only a key and its agent's model, and no `updatedAt`.
 */
export type CardSession = Pick<
  SessionRow,
  | "key"
  | "model"
  | "inputTokens"
  | "outputTokens"
  | "totalTokens"
  | "estimatedCostUsd"
  | "contextTokens"
  | "runtimeMs"
  | "thinkingLevel"
  | "status"
  | "compactionCount"
> & { updatedAt?: number };

/**
 * A token count of the card: 0 before the session's first run ended (`runtimeMs` is written then), and
 * `unknown` when runs ended but none reported usage (a model that sends none): never a made-up 0.
 */
function tokenCount(value: number | undefined, row: CardSession): string {
  if (value !== undefined) return formatTokenCount(value);
  return row.runtimeMs === undefined ? "0" : "unknown";
}

/** `<in> in / <out> out`, or `unknown` when the session's runs reported no usage. */
function tokensText(row: CardSession): string {
  const input = tokenCount(row.inputTokens, row);
  return input === "unknown" ? input : `${input} in / ${tokenCount(row.outputTokens, row)} out`;
}

/** The compact status card of SPEC §5.7. */
export function statusCard(
  row: CardSession,
  details: {
    modelNote?: string | undefined;
    children: Record<string, number>;
    now: number;
    /** The agent's day against its daily caps (SPEC §20), when it has one. */
    budget?: string;
  },
): string {
  const active = details.children.running ?? 0;
  const recent = Object.entries(details.children)
    .filter(([status]) => status !== "running")
    .reduce((sum, [, n]) => sum + n, 0);
  const activity =
    row.updatedAt === undefined ? "no activity" : `last activity ${formatAgo(details.now - row.updatedAt)}`;
  const lines = [
    `${PRODUCT_NAME} ${VERSION}`,
    `Model: ${row.model ?? "default"}${details.modelNote ? ` (${details.modelNote})` : ""}`,
    // OpenClaw's card counts compactions on its context line ("Context: … · 🧹 Compactions: N").
    `Tokens: ${tokensText(row)} • context ${tokenCount(row.totalTokens, row)}/${formatTokenCount(row.contextTokens ?? 0)} • Compactions: ${row.compactionCount ?? 0}`,
    // Only with pricing (SPEC §20): an unknown cost is left out, never shown as $0.
    ...(row.estimatedCostUsd !== undefined ? [`Cost: est ${formatUsd(row.estimatedCostUsd)}`] : []),
    ...(details.budget ? [details.budget] : []),
    `Session: ${row.key} • ${activity}`,
    `Runtime: ${row.runtimeMs !== undefined ? formatRuntime(row.runtimeMs) : "none yet"} • thinking ${row.thinkingLevel ?? "default"}`,
    `Run: ${row.status === "running" ? "active" : "idle"}`,
    `Sub-agents: ${active} active, ${recent} recent`,
  ];
  return lines.join("\n");
}
