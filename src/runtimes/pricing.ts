import type { ModelRuntime } from "../config/schema";
import type { RunUsage } from "./types";

type Pricing = NonNullable<ModelRuntime["pricing"]>;

/**
 * What a run's tokens cost in USD by its runtime's `pricing` (SPEC §20 `estimatedCostUsd`): uncached input,
 * output, and cache reads and writes at their own prices (at the input price when the pricing names none).
 * Undefined without pricing: unknown, never zero.
 */
export function estimateCostUsd(usage: RunUsage, pricing: Pricing | undefined): number | undefined {
  if (!pricing) return undefined;
  const perToken = (perMTok: number) => perMTok / 1_000_000;
  const cost =
    usage.input * perToken(pricing.inputPerMTok) +
    usage.output * perToken(pricing.outputPerMTok) +
    (usage.cacheRead ?? 0) * perToken(pricing.cacheReadPerMTok ?? pricing.inputPerMTok) +
    (usage.cacheWrite ?? 0) * perToken(pricing.cacheWritePerMTok ?? pricing.inputPerMTok);
  // Micro-dollars: a float sum's noise (0.30000000000000004) never reaches a status card.
  return Math.round(cost * 1_000_000) / 1_000_000;
}
