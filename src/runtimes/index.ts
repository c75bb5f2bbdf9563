import type { AgentConfig } from "../config/schema";
import { runOpenAi } from "./openai";
import { runScripted } from "./scripted";
import type { AgentRuntime } from "./types";
import { runWebhook } from "./webhook";

/** Until its provider lands (issue 30), a runtime type the schema accepts fails its runs plainly. */
const notYet: AgentRuntime = async (input) => ({
  kind: "failed",
  error: `the ${input.agent.runtime.type} runtime is not available yet`,
  retryable: false,
});

const runtimes: Record<AgentConfig["runtime"]["type"], AgentRuntime> = {
  scripted: runScripted,
  openai: runOpenAi,
  anthropic: notYet,
  "workers-ai": notYet,
  webhook: runWebhook,
};

/** The runtime an agent is configured with (SPEC §7). */
export function runtimeFor(agent: AgentConfig): AgentRuntime {
  return runtimes[agent.runtime.type];
}
