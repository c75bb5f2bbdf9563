import { describe, expect, it } from "vitest";
import { controlledItems, resolveTarget, type SubagentItem } from "../../src/subagents/targets";

const item = (index: number, fields: Partial<SubagentItem>): SubagentItem => ({
  index,
  sessionKey: `agent:main:subagent:0000000${index}-0000-4000-8000-000000000000`,
  status: "running",
  ...fields,
});

const items: SubagentItem[] = [
  item(1, { runId: "aaaa1111-0000-4000-8000-000000000001", label: "Deploy Prod", startedAt: 100 }),
  item(2, { runId: "bbbb2222-0000-4000-8000-000000000002", label: "deploy-staging", startedAt: 300 }),
  item(3, { runId: "abcd3333-0000-4000-8000-000000000003", label: "Report", startedAt: 200, status: "done" }),
  item(4, { runId: "abce4444-0000-4000-8000-000000000004", label: "report", startedAt: 50, status: "done" }),
  item(5, { runId: "cccc5555-0000-4000-8000-000000000005", label: "2", startedAt: 10, status: "done" }),
  item(6, { runId: "dddd6666-0000-4000-8000-000000000006", label: "bbbb", startedAt: 20, status: "done" }),
];

const resolved = (target: string) => {
  const result = resolveTarget(target, items);
  return result.ok ? result.items.map((each) => each.index) : result.error;
};

describe("subagents target resolution (SPEC §5.6 order)", () => {
  it("`last` is the most recently started", () => {
    expect(resolved("last")).toEqual([2]);
    expect(resolveTarget("last", [])).toEqual({
      ok: false,
      error: 'Unknown sub-agent "last"; see subagents list.',
    });
  });

  it("a number is a 1-based index, before any label (a label `2` does not win)", () => {
    expect(resolved("3")).toEqual([3]);
    expect(resolved("2")).toEqual([2]);
    expect(resolved("9")).toBe('Unknown sub-agent "9"; see subagents list.');
    expect(resolved("0")).toBe('Unknown sub-agent "0"; see subagents list.');
  });

  it("an exact child key, in any case", () => {
    expect(resolved(items[3]?.sessionKey ?? "")).toEqual([4]);
    expect(resolved((items[3]?.sessionKey ?? "").toUpperCase())).toEqual([4]);
  });

  it("an exact label, case-insensitive, before label prefixes; an ambiguous one is an error", () => {
    expect(resolved("DEPLOY PROD")).toEqual([1]);
    expect(resolved("report")).toBe('"report" matches 2 sub-agents by label; be more specific.');
    // An exact label wins over a runId prefix.
    expect(resolved("BBBB")).toEqual([6]);
  });

  it("then a unique label prefix; an ambiguous prefix is an error", () => {
    expect(resolved("deploy-s")).toEqual([2]);
    expect(resolved("Deploy")).toBe('"Deploy" matches 2 sub-agents by label prefix; be more specific.');
  });

  it("then a unique runId prefix; an ambiguous one is an error; anything else is unknown", () => {
    expect(resolved("cccc55")).toEqual([5]);
    expect(resolved("ab")).toBe('"ab" matches 2 sub-agents by runId prefix; be more specific.');
    expect(resolved("abcd")).toEqual([3]);
    expect(resolved("zzz")).toBe('Unknown sub-agent "zzz"; see subagents list.');
  });
});

describe("subagents items", () => {
  const now = 10_000_000;
  it("numbers active children first, then those that ended within recentMinutes", () => {
    const { active, recent } = controlledItems(
      [
        { sessionKey: "k1", createdAt: 1, status: "done", endedAt: now - 60_000, runId: "r1", task: "t1" },
        { sessionKey: "k2", createdAt: 2, runId: "r2" },
        { sessionKey: "k3", createdAt: 3, status: "failed", endedAt: now - 31 * 60_000 },
        { sessionKey: "k4", createdAt: 4, status: "running", startedAt: now - 5, endedAt: now - 100 },
        {
          sessionKey: "k5",
          createdAt: 5,
          status: "timeout",
          endedAt: now - 1,
          totalTokens: 7,
          runtimeMs: 1000,
        },
      ],
      30,
      now,
    );
    expect(active).toEqual([
      { index: 1, runId: "r2", sessionKey: "k2", status: "running" },
      // A running child does not show the end of an earlier run.
      // A running child's runtime is its time so far.
      { index: 2, sessionKey: "k4", status: "running", startedAt: now - 5, runtimeMs: 5 },
    ]);
    expect(recent).toEqual([
      { index: 3, runId: "r1", sessionKey: "k1", task: "t1", status: "done", endedAt: now - 60_000 },
      { index: 4, sessionKey: "k5", status: "timeout", runtimeMs: 1000, totalTokens: 7, endedAt: now - 1 },
    ]);
  });
});
