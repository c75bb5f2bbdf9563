import type { AgentConfig } from "../config/schema";
import { runAnthropic } from "./anthropic";
import { runOpenAi } from "./openai";
import { runScripted } from "./scripted";
import type { AgentRuntime } from "./types";
import { runWebhook } from "./webhook";
import { runWorkersAi } from "./workers-ai";

const runtimes: Record<AgentConfig["runtime"]["type"], AgentRuntime> = {
  scripted: runScripted,
  openai: runOpenAi,
  anthropic: runAnthropic,
  "workers-ai": runWorkersAi,
  webhook: runWebhook,
};

/** The runtime an agent is configured with (SPEC §7). */
export function runtimeFor(agent: AgentConfig): AgentRuntime {
  return runtimes[agent.runtime.type];
}
