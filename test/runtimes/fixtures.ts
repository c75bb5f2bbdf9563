import { env } from "cloudflare:workers";
import { deriveKey } from "../../src/auth/purpose-keys";
import { type AgentConfig, configSchema } from "../../src/config/schema";
import type { RunInput, ToolSpec } from "../../src/runtimes/types";
import type { TranscriptMessage } from "../../src/transcript/message";

/** An agent as the config loader would produce it, so the runtime shape is validated too. */
export function agentWith(runtime: Record<string, unknown>, id = "main"): AgentConfig {
  const config = configSchema.parse({ agents: { list: [{ id, runtime }] } });
  const agent = config.agents.list[0];
  if (!agent) throw new Error("config has no agent");
  return agent;
}

export function userMessage(text: string, timestamp = 1_700_000_000_000): TranscriptMessage {
  return { id: crypto.randomUUID(), role: "user", content: text, timestamp };
}

export const LOOKUP_TOOL: ToolSpec = {
  name: "lookup",
  description: "Looks a word up.",
  parameters: { type: "object", properties: { word: { type: "string" } }, required: ["word"] },
};

/** The calls a run made to its `callTool` callback, in order. */
export type ToolCalls = Array<{ name: string; args: unknown }>;

/** A hand-built RunInput; `calls` collects every callTool invocation, which answers `toolResult`. */
export function runInput(
  agent: AgentConfig,
  text: string,
  options: Partial<RunInput> & { toolResult?: object; secrets?: Record<string, string> } = {},
): RunInput & { calls: ToolCalls } {
  const calls: ToolCalls = [];
  const { toolResult = { ok: true }, secrets = {}, ...overrides } = options;
  return {
    runId: `run-${crypto.randomUUID()}`,
    agent,
    sessionKey: `agent:${agent.id}:main`,
    sessionId: crypto.randomUUID(),
    message: userMessage(text),
    history: [],
    system: "",
    attachments: [],
    tools: [],
    runToken: `run-token-${crypto.randomUUID()}`,
    signal: new AbortController().signal,
    callTool: async (name, args) => {
      calls.push({ name, args });
      return toolResult;
    },
    takeSteering: () => [],
    onDelta: () => {},
    secret: (name) => secrets[name],
    purposeKey: async (purpose) => deriveKey(env.SWITCHBOARD_SIGNING_KEY ?? "", purpose),
    ...overrides,
    calls,
  };
}
