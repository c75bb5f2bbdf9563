import { type AgentConfig, type ThinkingLevel, thinkingLevels } from "../../config/schema";
import { runModel, runProvider } from "../../runtimes/run-messages";
import type { SessionRecord } from "../record/record";

/**
 * The session's thinking level (the `sessions` patch, or `sessions_spawn thinking` for a child) over the
 * agent's `thinking`; OpenClaw's `xhigh`, which spawn and the patch accept, is our highest level.
 */
function effectiveThinking(agent: AgentConfig, record: SessionRecord): ThinkingLevel | undefined {
  const level = record.thinkingLevel === "xhigh" ? "high" : record.thinkingLevel;
  return thinkingLevels.find((known) => known === level) ?? agent.thinking;
}

/** The agent with the session's thinking level: every runtime of the chain thinks at it. */
function withSessionThinking(configured: AgentConfig, record: SessionRecord): AgentConfig {
  const thinking = effectiveThinking(configured, record);
  return thinking ? { ...configured, thinking } : configured;
}

/**
 * The agent as this session runs it: the session's thinking level, and a session model override replaces
 * the model it shows and, for a model runtime, the model it calls.
 */
export function effectiveAgent(configured: AgentConfig, record: SessionRecord): AgentConfig {
  const agent = withSessionThinking(configured, record);
  if (!record.modelOverride) return agent;
  return {
    ...agent,
    model: record.modelOverride,
    runtime: "model" in agent.runtime ? { ...agent.runtime, model: record.modelOverride } : agent.runtime,
  };
}

/**
 * The runtimes a run tries, in order (SPEC §20 `fallbacks`): the agent's own (with the session's model
 * override), then each fallback as the agent's runtime, so a fallback's messages name its own model and
 * provider. The override is the session's choice of primary model; it never replaces a fallback's.
 */
export function runtimeChain(agent: AgentConfig, record: SessionRecord): AgentConfig[] {
  return [
    effectiveAgent(agent, record),
    ...agent.fallbacks.map((runtime) => ({
      ...withSessionThinking(agent, record),
      model: runtime.model,
      runtime,
    })),
  ];
}

/** `model (provider)`, as a retry note names a runtime of the chain. */
export function chainLabel(agent: AgentConfig): string {
  return `${runModel(agent)} (${runProvider(agent)})`;
}
