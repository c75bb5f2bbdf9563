import type { AgentConfig } from "../config/schema";
import type { ContentBlock, TranscriptMessage } from "../transcript/message";

/** Why a model call ended, in OpenClaw's (pi's) names. */
export type StopReason = "stop" | "length" | "toolUse" | "error" | "aborted";

/**
 * One model call's tokens, in OpenClaw's field names (`cacheRead`/`cacheWrite` when the provider reports
 * them; `input` is the uncached input). `totalTokens` is what that call had in context: its prompt plus
 * its completion.
 */
export interface MessageUsage {
  input: number;
  output: number;
  totalTokens: number;
  cacheRead?: number;
  cacheWrite?: number;
}

/** The model a run's messages name: a model runtime's model (after a session override), else the configured one. */
export function runModel(agent: AgentConfig): string {
  return "model" in agent.runtime ? agent.runtime.model : agent.model;
}

/** The provider a run's messages name: the config has no provider field, so the runtime type. */
export function runProvider(agent: AgentConfig): string {
  return agent.runtime.type;
}

/** Assistant text as OpenClaw stores it: content blocks, never a bare string. */
export function textContent(text: string): ContentBlock[] {
  return text ? [{ type: "text", text }] : [];
}

/**
 * An assistant message written by one of our runs: content blocks plus who answered and how. The agent
 * is missing only for a posted webhook result whose agent left the config since the run started; the
 * usage only when the call reported none (unknown is left out, never written as zeros).
 */
export function assistantMessage(
  run: { runId: string; agent: AgentConfig | undefined },
  content: ContentBlock[],
  stopReason: StopReason,
  usage: MessageUsage | undefined,
): TranscriptMessage {
  return {
    id: crypto.randomUUID(),
    role: "assistant",
    content,
    ...(run.agent ? { model: runModel(run.agent), provider: runProvider(run.agent) } : {}),
    stopReason,
    ...(usage ? { usage } : {}),
    timestamp: Date.now(),
    runId: run.runId,
  };
}

/** True for a tool's failure result (`{ status: "error" | "forbidden" }`; a thrown tool answers `error`). */
export function isToolError(result: object): boolean {
  const status = (result as { status?: unknown }).status;
  return status === "error" || status === "forbidden";
}

/** The transcript entry of one tool call's result, flagged `isError` as OpenClaw's are. */
export function toolResultMessage(
  runId: string,
  call: { id: string; name: string },
  result: object,
): TranscriptMessage {
  return {
    id: crypto.randomUUID(),
    role: "toolResult",
    content: [{ type: "text", text: JSON.stringify(result) }],
    toolCallId: call.id,
    toolName: call.name,
    isError: isToolError(result),
    timestamp: Date.now(),
    runId,
  };
}
