import type { AgentConfig } from "../config/schema";

/** What a run's system prompt is built from. */
export interface SystemPromptInput {
  agent: AgentConfig;
  /** The run context this turn was queued with (agent-to-agent roles, reply-step or announce words). */
  context?: string;
}

/**
 * A run's system prompt (SPEC §20): the agent's instructions first, with nothing before them, then the run
 * context block Switchboard writes.
 */
export function buildSystemPrompt(input: SystemPromptInput): string {
  return [input.agent.instructions, input.context].filter((part) => part && part.trim() !== "").join("\n\n");
}
