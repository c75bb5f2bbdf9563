import type { AgentConfig } from "../../config/schema";
import { runModel, runProvider } from "../../runtimes/run-messages";
import type { SessionRecord } from "../record/record";

/**
 * The agent as this session runs it: a session model override replaces the model it shows and, for a
 * model runtime, the model it calls.
 */
export function effectiveAgent(agent: AgentConfig, record: SessionRecord): AgentConfig {
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
    ...agent.fallbacks.map((runtime) => ({ ...agent, model: runtime.model, runtime })),
  ];
}

/** `model (provider)`, as a retry note names a runtime of the chain. */
export function chainLabel(agent: AgentConfig): string {
  return `${runModel(agent)} (${runProvider(agent)})`;
}
