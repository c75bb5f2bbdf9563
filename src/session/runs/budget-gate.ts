import { dailyCapRefusal, hasDailyCap, rateRefusal } from "../../agent-object/budget";
import { agentApi } from "../../agent-object/client";
import { utcDay } from "../../agent-object/spend";
import type { AgentConfig } from "../../config/schema";
import { runStartsSince } from "../store/budget-events";
import type { BudgetRefusal } from "../writes/budget";

const MINUTE_MS = 60_000;

/**
 * Whether the session's agent's budget (SPEC §20) lets a new run start now: the per-session run rate is
 * counted here (a sliding minute over this session's run starts), a daily cap by the agent object, asked
 * only when the agent has one (one RPC per run start). Undefined: the run may start.
 */
export async function budgetRefusal(
  env: Env,
  sql: SqlStorage,
  agent: AgentConfig | undefined,
  now: number,
): Promise<BudgetRefusal | undefined> {
  const budget = agent?.budget;
  if (!agent || !budget) return undefined;
  const limit = budget.runsPerMinutePerSession;
  if (limit !== undefined) {
    const starts = runStartsSince(sql, now - MINUTE_MS);
    // The start that must leave the window before one more fits in it.
    const blocking = starts[starts.length - limit];
    if (starts.length >= limit && blocking !== undefined)
      return { cause: "rate", line: rateRefusal(agent.id, limit, blocking + MINUTE_MS - now) };
  }
  if (!hasDailyCap(budget)) return undefined;
  const spend = await agentApi(env, agent.id).spend(utcDay(now));
  const line = dailyCapRefusal(agent.id, budget, spend);
  return line ? { cause: "daily", line } : undefined;
}
