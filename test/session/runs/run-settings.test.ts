import { describe, expect, it } from "vitest";
import type { SessionRecord } from "../../../src/session/record/record";
import { effectiveAgent } from "../../../src/session/runs/model-chain";
import { retryDelayMs } from "../../../src/session/runs/run-executor";
import { agentWith } from "../../runtimes/fixtures";

/** A session record with only what the run settings read. */
function record(fields: Partial<SessionRecord> = {}): SessionRecord {
  return {
    sessionKey: "agent:main:main",
    sessionId: "s-1",
    agentId: "main",
    createdAt: 1,
    updatedAt: 1,
    spawnDepth: 0,
    version: 1,
    ...fields,
  };
}

const anthropic = { type: "anthropic", model: "claude-sonnet-4-5" };

describe("effectiveAgent: the session's settings over the agent's (SPEC §20)", () => {
  it("takes the session's thinking level (sessions patch, sessions_spawn thinking) over the agent's", () => {
    const agent = { ...agentWith(anthropic), thinking: "low" as const };
    expect(effectiveAgent(agent, record()).thinking).toBe("low");
    expect(effectiveAgent(agent, record({ thinkingLevel: "high" })).thinking).toBe("high");
    expect(effectiveAgent(agent, record({ thinkingLevel: "off" })).thinking).toBe("off");
    // OpenClaw's xhigh, which spawn and the patch accept, is our highest level.
    expect(effectiveAgent(agent, record({ thinkingLevel: "xhigh" })).thinking).toBe("high");
    expect(effectiveAgent(agentWith(anthropic), record()).thinking).toBeUndefined();
  });

  it("keeps the model override alongside", () => {
    const agent = effectiveAgent(
      agentWith(anthropic),
      record({ modelOverride: "claude-opus-4-1", thinkingLevel: "medium" }),
    );
    expect(agent).toMatchObject({
      thinking: "medium",
      runtime: { type: "anthropic", model: "claude-opus-4-1" },
    });
  });
});

describe("retryDelayMs", () => {
  it("doubles from 200 ms, and waits longer when the provider's retry-after says so", () => {
    expect([0, 1, 2].map((attempt) => retryDelayMs(attempt, undefined))).toEqual([200, 400, 800]);
    expect(retryDelayMs(0, 5_000)).toBe(5_000);
    expect(retryDelayMs(2, 100)).toBe(800);
  });
});
