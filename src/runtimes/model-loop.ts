import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4FunctionTool,
  LanguageModelV4Message,
  LanguageModelV4Usage,
  SharedV4ProviderOptions,
} from "@ai-sdk/provider";
import { MAX_TOOL_ARGUMENTS_DEPTH, messageText, type TranscriptMessage } from "../transcript/message";
import { nestsDeeperThan } from "../validation";
import { type AnswerWatch, newWatch } from "./answer-watch";
import { streamModelStep } from "./model-step";
import {
  assistantMessage,
  type MessageUsage,
  type StopReason,
  textContent,
  toolResultMessage,
} from "./run-messages";
import type { RunInput, RunOutcome, RunUsage } from "./types";

/** The tool loop stops after this many model calls, answer or not. */
export const MAX_MODEL_STEPS = 8;

/** What a provider adds to Switchboard's loop: its model, its call options, what to mask in errors. */
export interface ModelLoopSetup {
  model: LanguageModelV4;
  /** Per-call options beyond the prompt and tools (temperature, max tokens, reasoning, provider options). */
  callOptions: Omit<LanguageModelV4CallOptions, "prompt" | "tools" | "abortSignal">;
  /** Provider options on the system prompt and on the last tool (Anthropic's prompt-cache breakpoints). */
  cacheMark?: SharedV4ProviderOptions;
  secrets: readonly (string | undefined)[];
  /**
   * Whether the chat's own system notes (a yield's note, a watch notice) go to the model where they stand,
   * as system messages; for Chat Completions, which takes them anywhere. Otherwise they are left out.
   */
  notesInPlace?: boolean;
  /** Where the provider's fetch (or binding) records what the wire showed of the current call. */
  watch: { current: AnswerWatch };
}

/** The run's prompt as the AI SDK's providers take it: the system prompt, attached text files, the chat. */
function promptOf(
  input: RunInput,
  cacheMark: SharedV4ProviderOptions | undefined,
  notesInPlace: boolean,
): LanguageModelV4Message[] {
  const prompt: LanguageModelV4Message[] = [];
  if (input.system)
    prompt.push({
      role: "system",
      content: input.system,
      ...(cacheMark ? { providerOptions: cacheMark } : {}),
    });
  for (const file of input.attachments) {
    if (file.text !== undefined)
      prompt.push({ role: "system", content: `Attached file ${file.name}:\n${file.text}` });
  }
  for (const message of [...input.history, input.message]) {
    const text = messageText(message);
    if (!text) continue;
    if (message.role === "user") prompt.push({ role: "user", content: [{ type: "text", text }] });
    else if (message.role === "assistant")
      prompt.push({ role: "assistant", content: [{ type: "text", text }] });
    else if (message.role === "system" && notesInPlace) prompt.push({ role: "system", content: text });
  }
  return prompt;
}

function toolsOf(
  input: RunInput,
  cacheMark: SharedV4ProviderOptions | undefined,
): LanguageModelV4FunctionTool[] {
  return input.tools.map((tool, index) => ({
    type: "function",
    name: tool.name,
    description: tool.description,
    inputSchema: tool.parameters,
    // One breakpoint after the last tool caches every definition (they come before the system prompt).
    ...(cacheMark && index === input.tools.length - 1 ? { providerOptions: cacheMark } : {}),
  }));
}

/** One call's usage in OpenClaw's fields; unknown (not zero) when the provider reported no token counts. */
export function callUsageOf(usage: LanguageModelV4Usage | undefined): MessageUsage | undefined {
  const { total, noCache, cacheRead, cacheWrite } = usage?.inputTokens ?? {};
  const output = usage?.outputTokens.total;
  if (total === undefined && output === undefined) return undefined;
  const input = noCache ?? Math.max(0, (total ?? 0) - (cacheRead ?? 0) - (cacheWrite ?? 0));
  return {
    input,
    output: output ?? 0,
    totalTokens: (total ?? input) + (output ?? 0),
    ...(cacheRead !== undefined ? { cacheRead } : {}),
    ...(cacheWrite !== undefined ? { cacheWrite } : {}),
  };
}

function addUsage(run: RunUsage | undefined, call: ReturnType<typeof callUsageOf>): RunUsage | undefined {
  if (!call) return run;
  const sum = (a: number | undefined, b: number | undefined) =>
    a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0);
  const cacheRead = sum(run?.cacheRead, call.cacheRead);
  const cacheWrite = sum(run?.cacheWrite, call.cacheWrite);
  return {
    input: (run?.input ?? 0) + call.input,
    output: (run?.output ?? 0) + call.output,
    total: (run?.total ?? 0) + call.totalTokens,
    ...(cacheRead !== undefined ? { cacheRead } : {}),
    ...(cacheWrite !== undefined ? { cacheWrite } : {}),
    lastCallTokens: call.totalTokens,
  };
}

function stopReasonOf(finishReason: string, calledTools: boolean): StopReason {
  if (calledTools) return "toolUse";
  if (finishReason === "length") return "length";
  if (finishReason === "content-filter" || finishReason === "error") return "error";
  return "stop";
}

/**
 * Switchboard's durable tool loop over an AI SDK LanguageModel: one model step at a time, each tool call
 * run through `input.callTool` (recorded, and replayed on a retry or resumption), steered messages taken
 * before each step, answer text handed to `onDelta`. No SDK-side tool execution or multi-step.
 */
export async function runModelLoop(input: RunInput, setup: ModelLoopSetup): Promise<RunOutcome> {
  const prompt = promptOf(input, setup.cacheMark, setup.notesInPlace === true);
  const tools = toolsOf(input, setup.cacheMark);
  const appended: TranscriptMessage[] = [];
  let usage: RunUsage | undefined;
  for (let round = 0; round < MAX_MODEL_STEPS; round++) {
    for (const steered of input.takeSteering())
      prompt.push({ role: "user", content: [{ type: "text", text: messageText(steered) }] });
    setup.watch.current = newWatch();
    const answer = await streamModelStep(
      setup.model,
      { ...setup.callOptions, prompt, ...(tools.length > 0 ? { tools } : {}), abortSignal: input.signal },
      input.onDelta,
      setup.secrets,
      setup.watch.current,
    );
    if (!answer.ok) {
      const { error, retryable, retryAfterMs } = answer;
      return { kind: "failed", error, retryable, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
    }
    const { text, reasoning, calls, finishReason } = answer.step;
    const callUsage = callUsageOf(answer.step.usage);
    usage = addUsage(usage, callUsage);
    const stopReason = stopReasonOf(finishReason, calls.length > 0);
    if (calls.length === 0) {
      if (text) appended.push(assistantMessage(input, textContent(text), stopReason, callUsage));
      return { kind: "done", text, ...(usage ? { usage } : {}), messages: appended };
    }
    const parsed = calls.map((call) => ({ ...call, args: safeJson(call.input) }));
    // The step goes back to the model as it came: its reasoning (signed, for Anthropic), text and calls.
    prompt.push({
      role: "assistant",
      content: [
        ...reasoning.map((block) => ({
          type: "reasoning" as const,
          text: block.text,
          ...(block.providerMetadata ? { providerOptions: block.providerMetadata } : {}),
        })),
        ...(text ? [{ type: "text" as const, text }] : []),
        ...parsed.map((call) => ({
          type: "tool-call" as const,
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          input: call.args,
        })),
      ],
    });
    const blocks = parsed.map((call) => ({
      type: "toolCall" as const,
      id: call.toolCallId,
      name: call.toolName,
      arguments: call.args,
    }));
    appended.push(assistantMessage(input, [...textContent(text), ...blocks], stopReason, callUsage));
    for (const call of parsed) {
      const result = await input.callTool(call.toolName, call.args);
      prompt.push({
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: call.toolCallId,
            toolName: call.toolName,
            output: { type: "text", value: JSON.stringify(result) },
          },
        ],
      });
      appended.push(toolResultMessage(input.runId, { id: call.toolCallId, name: call.toolName }, result));
    }
  }
  return {
    kind: "failed",
    error: `model did not answer within ${MAX_MODEL_STEPS} tool rounds`,
    retryable: false,
  };
}

/** A tool call's arguments; raw text when they are not JSON or nest too deep to store (src/limits.ts). */
export function safeJson(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return nestsDeeperThan(value, MAX_TOOL_ARGUMENTS_DEPTH) ? { _raw: text } : value;
  } catch {
    return { _raw: text };
  }
}
