/**
 * A message's `usage` as a list row shows it (OpenClaw's `messageLimit` rows keep it): only its numbers,
 * at the top level and one object down (pi's `cost: { input, output, total }`). An imported message may
 * carry anything there, and no text leaves unredacted this way. Undefined when no number is left.
 */
export function usageNumbers(value: unknown, depth = 0): Record<string, unknown> | undefined {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  const kept: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(value)) {
    if (typeof item === "number" && Number.isFinite(item)) kept[name] = item;
    else if (depth === 0) {
      const nested = usageNumbers(item, 1);
      if (nested) kept[name] = nested;
    }
  }
  return Object.keys(kept).length > 0 ? kept : undefined;
}
