import type { ChildRow } from "../index-db/children";

export interface SubagentItem {
  index: number;
  runId?: string;
  sessionKey: string;
  label?: string;
  task?: string;
  status: string;
  runtimeMs?: number;
  model?: string;
  totalTokens?: number;
  startedAt?: number;
  endedAt?: number;
}

/** A child with no finished run yet is active, whatever its index status says. */
export function isActive(child: ChildRow): boolean {
  return child.status === undefined || child.status === "running";
}

const STATUS_OF: Record<string, string> = {
  done: "done",
  failed: "failed",
  timeout: "timeout",
  killed: "killed",
};

/** Active children, then those that ended within `recentMinutes`, numbered 1… in that order (SPEC §5.6). */
export function controlledItems(
  children: ChildRow[],
  recentMinutes: number,
  now: number,
): { active: SubagentItem[]; recent: SubagentItem[] } {
  const toItem = (child: ChildRow, index: number): SubagentItem => ({
    index,
    ...(child.runId ? { runId: child.runId } : {}),
    sessionKey: child.sessionKey,
    ...(child.label ? { label: child.label } : {}),
    ...(child.task ? { task: child.task } : {}),
    status: isActive(child) ? "running" : (STATUS_OF[child.status ?? ""] ?? "done"),
    // A running child's runtime so far (OpenClaw: now − start); an ended one's as recorded.
    ...(isActive(child) && child.startedAt !== undefined
      ? { runtimeMs: Math.max(0, now - child.startedAt) }
      : child.runtimeMs !== undefined
        ? { runtimeMs: child.runtimeMs }
        : {}),
    ...(child.model ? { model: child.model } : {}),
    ...(child.totalTokens !== undefined ? { totalTokens: child.totalTokens } : {}),
    ...(child.startedAt !== undefined ? { startedAt: child.startedAt } : {}),
    ...(child.endedAt !== undefined && !isActive(child) ? { endedAt: child.endedAt } : {}),
  });
  const active = children.filter(isActive);
  const recent = children.filter(
    (child) => !isActive(child) && (child.endedAt ?? 0) >= now - recentMinutes * 60_000,
  );
  return {
    active: active.map((child, i) => toItem(child, i + 1)),
    recent: recent.map((child, i) => toItem(child, active.length + i + 1)),
  };
}

export type TargetResolution = { ok: true; items: SubagentItem[] } | { ok: false; error: string };

/**
 * SPEC §5.6 target resolution, in order: `last`, a 1-based index, an exact child key, an exact label
 * (case-insensitive; ambiguous is an error), a label prefix, a runId prefix.
 */
export function resolveTarget(target: string, items: SubagentItem[]): TargetResolution {
  const found = (item: SubagentItem | undefined): TargetResolution =>
    item
      ? { ok: true, items: [item] }
      : { ok: false, error: `Unknown sub-agent "${target}"; see subagents list.` };
  const unique = (matches: SubagentItem[], what: string): TargetResolution | undefined => {
    if (matches.length === 1) return found(matches[0]);
    if (matches.length > 1)
      return {
        ok: false,
        error: `"${target}" matches ${matches.length} sub-agents by ${what}; be more specific.`,
      };
    return undefined;
  };
  if (target === "last") {
    return found([...items].sort((a, b) => (b.startedAt ?? 0) - (a.startedAt ?? 0))[0]);
  }
  if (/^\d+$/.test(target)) return found(items.find((item) => item.index === Number(target)));
  const byKey = items.find((item) => item.sessionKey === target.toLowerCase());
  if (byKey) return found(byKey);
  const lower = target.toLowerCase();
  return (
    unique(
      items.filter((item) => item.label?.toLowerCase() === lower),
      "label",
    ) ??
    unique(
      items.filter((item) => item.label?.toLowerCase().startsWith(lower)),
      "label prefix",
    ) ??
    unique(
      items.filter((item) => item.runId?.startsWith(lower)),
      "runId prefix",
    ) ??
    found(undefined)
  );
}
