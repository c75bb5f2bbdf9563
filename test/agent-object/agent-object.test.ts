import { evictDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { budgetCardLine, dailyCapRefusal, hasDailyCap } from "../../src/agent-object/budget";
import { agentApi } from "../../src/agent-object/client";
import { utcDay, utcDayBefore } from "../../src/agent-object/spend";
import { uid } from "../support";

/** Days near the real today: the object prunes what is days old. */
const today = utcDay(Date.now());
const tomorrow = utcDayBefore(Date.now(), -1);
const later = utcDayBefore(Date.now(), -2);

describe("the agent object's daily spend (SPEC §20 budgets)", () => {
  it("adds a run's usage to its day once per runId, across an eviction; days are apart", async () => {
    const agentId = `agent-${uid()}`;
    const agent = () => agentApi(env, agentId);
    const report = { runId: "run-1", day: today, tokens: 120, costUsd: 0.25 };
    expect(await agent().recordUsage(report)).toEqual({
      day: today,
      tokens: 120,
      costUsd: 0.25,
      runs: 1,
    });
    await evictDurableObject(env.AGENT.getByName(agentId));
    // Delivered again (the session's outbox retried it): nothing changes.
    expect(await agent().recordUsage(report)).toMatchObject({ tokens: 120, runs: 1 });
    await agent().recordUsage({ runId: "run-2", day: today, tokens: 30, costUsd: 0.5 });
    await agent().recordUsage({ runId: "run-3", day: tomorrow, tokens: 7, costUsd: 0 });
    expect(await agent().spend(today)).toEqual({
      day: today,
      tokens: 150,
      costUsd: 0.75,
      runs: 2,
    });
    expect(await agent().spend(tomorrow)).toMatchObject({ tokens: 7, runs: 1 });
    expect(await agent().spend(later)).toEqual({ day: later, tokens: 0, costUsd: 0, runs: 0 });
  });
});

describe("budget lines", () => {
  const spend = { day: "2026-03-01", tokens: 12_000, costUsd: 0.42, runs: 3 };

  it("the status card's line names each cap the agent has", () => {
    expect(budgetCardLine({ costUsdPerDay: 1, tokensPerDay: 50_000 }, spend)).toBe(
      "Budget: $0.42 / $1.00 today · 12,000 / 50,000 tokens",
    );
    expect(budgetCardLine({ tokensPerDay: 50_000 }, spend)).toBe("Budget: 12,000 / 50,000 tokens today");
  });

  it("a daily cap refuses once spend reaches it, not before; a rate alone is no daily cap", () => {
    expect(dailyCapRefusal("main", { costUsdPerDay: 0.43 }, spend)).toBeUndefined();
    expect(dailyCapRefusal("main", { costUsdPerDay: 0.42 }, spend)).toBe(
      "budget: agent main has spent $0.42 of its $0.42 daily cap; runs resume at 00:00 UTC",
    );
    expect(dailyCapRefusal("main", { tokensPerDay: 12_000 }, spend)).toBe(
      "budget: agent main has used 12,000 of its 12,000 daily tokens; runs resume at 00:00 UTC",
    );
    expect(hasDailyCap({ runsPerMinutePerSession: 2 })).toBe(false);
    expect(hasDailyCap(undefined)).toBe(false);
  });
});
