import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/load";

/** `agents.list[i].thinking` however the loader spells the index (`.1` or `[1]`). */
const thinkingPath = (index: number) => new RegExp(`agents\\.list(\\.${index}|\\[${index}\\])\\.thinking`);

function parsed(agents: unknown[]) {
  return parseConfig(JSON.stringify({ agents: { list: agents } }));
}

const workersAi = { type: "workers-ai", model: "@cf/meta/llama-3.3-70b-instruct-fp8-fast" };
const anthropic = { type: "anthropic", model: "claude-sonnet-4-5", apiKeyEnv: "ANTHROPIC_API_KEY" };

describe("agents.list[].thinking the provider cannot honour (SPEC §20)", () => {
  it("is a config error on a workers-ai agent, naming the path and the runtime", () => {
    const result = parsed([{ id: "main" }, { id: "cf", runtime: workersAi, thinking: "high" }]);
    if (result.ok) throw new Error("expected an invalid config");
    expect(result.error).toMatch(thinkingPath(1));
    expect(result.error).toContain('thinking "high" cannot be honoured by the workers-ai runtime');
  });

  it("is a config error when only a fallback cannot honour it", () => {
    const result = parsed([{ id: "main", runtime: anthropic, thinking: "low", fallbacks: [workersAi] }]);
    if (result.ok) throw new Error("expected an invalid config");
    expect(result.error).toMatch(thinkingPath(0));
  });

  it("accepts off on workers-ai, and every level on anthropic and openai", () => {
    expect(parsed([{ id: "cf", runtime: workersAi, thinking: "off" }]).ok).toBe(true);
    for (const thinking of ["minimal", "low", "medium", "high"]) {
      const openai = { type: "openai", model: "gpt-5" };
      expect(parsed([{ id: "a", runtime: anthropic, thinking, fallbacks: [openai] }]).ok).toBe(true);
    }
  });
});
