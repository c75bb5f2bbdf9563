import type { AgentConfig } from "../config/schema";
import type { DailySpend } from "./spend";

/** `agents.list[].budget` (SPEC §20). */
export type Budget = NonNullable<AgentConfig["budget"]>;

/** True when the budget caps a day: only then are run starts asked about and usage reported. */
export function hasDailyCap(budget: Budget | undefined): budget is Budget {
  return budget?.costUsdPerDay !== undefined || budget?.tokensPerDay !== undefined;
}

const usd = (amount: number) => `$${amount.toFixed(2)}`;
const count = (n: number) => Math.round(n).toLocaleString("en-US");

/**
 * Why a run may not start today, or undefined when it may: the day's spend has reached a daily cap.
 * Recorded usage only (a run in flight counts once it ends), so a day can end a little past its cap.
 */
export function dailyCapRefusal(agentId: string, budget: Budget, spend: DailySpend): string | undefined {
  const resume = "runs resume at 00:00 UTC";
  if (budget.costUsdPerDay !== undefined && spend.costUsd >= budget.costUsdPerDay)
    return `budget: agent ${agentId} has spent ${usd(spend.costUsd)} of its ${usd(budget.costUsdPerDay)} daily cap; ${resume}`;
  if (budget.tokensPerDay !== undefined && spend.tokens >= budget.tokensPerDay)
    return `budget: agent ${agentId} has used ${count(spend.tokens)} of its ${count(budget.tokensPerDay)} daily tokens; ${resume}`;
  return undefined;
}

/** Why a session's run may not start yet: `limit` runs started in the last minute; it may in `waitMs`. */
export function rateRefusal(agentId: string, limit: number, waitMs: number): string {
  const runs = limit === 1 ? "1 run" : `${limit} runs`;
  return `budget: agent ${agentId} allows ${runs} a minute per session; the next can start in ${Math.max(1, Math.ceil(waitMs / 1000))}s`;
}

/** The status card's line: the day's spend against each daily cap ("Budget: $0.42 / $1.00 today · …"). */
export function budgetCardLine(budget: Budget, spend: DailySpend): string {
  const parts = [
    ...(budget.costUsdPerDay !== undefined ? [`${usd(spend.costUsd)} / ${usd(budget.costUsdPerDay)}`] : []),
    ...(budget.tokensPerDay !== undefined
      ? [`${count(spend.tokens)} / ${count(budget.tokensPerDay)} tokens`]
      : []),
  ];
  const [first, ...rest] = parts;
  return `Budget: ${[`${first} today`, ...rest].join(" · ")}`;
}
