import type { ThinkingLevel } from "../config/schema";
import { MAX_TOOL_ARGUMENTS_DEPTH, messageText, type TranscriptMessage } from "../transcript/message";
import { nestsDeeperThan } from "../validation";
import { describeFetchFailure, describeHttpFailure, readJsonBody } from "./http-errors";
import { secretHeaders } from "./model-settings";
import {
  type Completion,
  type CompletionFailure,
  completionOf,
  MALFORMED,
  type ReportedUsage,
} from "./openai-completion";
import { readCompletionStream } from "./openai-stream";
import {
  assistantMessage,
  type MessageUsage,
  type StopReason,
  textContent,
  toolResultMessage,
} from "./run-messages";
import type { RunInput, RunOutcome, RunUsage } from "./types";

/** The tool loop stops after this many model calls, answer or not. */
export const MAX_TOOL_ROUNDS = 8;

type ChatMessage = Record<string, unknown>;

/**
 * OpenAI's `finish_reason` in OpenClaw's names. An answer with tool calls is `toolUse` whatever it says
 * (some compatible servers say `stop`); a missing or unknown reason reads as `stop`.
 */
function stopReasonOf(finishReason: string | null | undefined, calledTools: boolean): StopReason {
  if (calledTools) return "toolUse";
  if (finishReason === "length") return "length";
  if (finishReason === "content_filter") return "error";
  return "stop";
}

function chatHistory(input: RunInput): ChatMessage[] {
  const messages: ChatMessage[] = [];
  if (input.system) messages.push({ role: "system", content: input.system });
  for (const file of input.attachments) {
    if (file.text !== undefined)
      messages.push({ role: "system", content: `Attached file ${file.name}:\n${file.text}` });
  }
  for (const message of [...input.history, input.message]) {
    const text = messageText(message);
    if ((message.role === "user" || message.role === "assistant" || message.role === "system") && text) {
      messages.push({ role: message.role, content: text });
    }
  }
  return messages;
}

/** One call's usage as the model reported it; `undefined` (unknown, not zero) when it reported none. */
function callUsageOf(reported: ReportedUsage | undefined): MessageUsage | undefined {
  const { prompt_tokens, completion_tokens, total_tokens } = reported ?? {};
  if (prompt_tokens === undefined && completion_tokens === undefined && total_tokens === undefined)
    return undefined;
  const input = prompt_tokens ?? 0;
  const output = completion_tokens ?? 0;
  return { input, output, totalTokens: total_tokens ?? input + output };
}

/**
 * The run's usage with one more call's. A run whose calls report usage only some of the time sums what
 * was reported (the known part, an undercount rather than a guess), and its `lastCallTokens` is the last
 * reporting call's; a run where no call reported any has no usage at all (unknown, never zeros).
 */
function addCallUsage(run: RunUsage | undefined, call: MessageUsage | undefined): RunUsage | undefined {
  if (!call) return run;
  return {
    input: (run?.input ?? 0) + call.input,
    output: (run?.output ?? 0) + call.output,
    total: (run?.total ?? 0) + call.totalTokens,
    lastCallTokens: call.totalTokens,
  };
}

/**
 * The completion in a successful answer: read from its event stream as it arrives, each piece of text
 * handed to `onDelta`; or parsed whole when the server answered plain JSON despite `stream: true` (some
 * compatible servers ignore it). An error the stream reports is quoted with `secrets` masked.
 */
async function readCompletion(
  response: Response,
  signal: AbortSignal,
  onDelta: (text: string) => void,
  secrets: readonly (string | undefined)[],
): Promise<{ ok: true; completion: Completion } | CompletionFailure> {
  const type = (response.headers.get("Content-Type") ?? "").toLowerCase();
  if (response.body && type.includes("text/event-stream"))
    return readCompletionStream(response.body, signal, onDelta, secrets);
  const body = await readJsonBody("model API", response, signal);
  if (!body.ok) return body;
  const completion = completionOf(body.json);
  if (!completion) return MALFORMED;
  // Watchers still see the reply, as one delta, so the deltas always add up to what the model said.
  if (completion.content) onDelta(completion.content);
  return { ok: true, completion };
}

/**
 * The runtime's sampling parameters on the wire: `temperature`; the thinking level as `reasoning_effort`
 * (`off` sends none); the output allowance as `max_completion_tokens` for a reasoning call (OpenAI's
 * reasoning models take no `max_tokens`), else `max_tokens`, which every compatible server knows.
 */
function callParameters(
  runtime: { temperature?: number | undefined; maxOutputTokens?: number | undefined },
  thinking: ThinkingLevel | undefined,
): Record<string, unknown> {
  const reasoning = thinking && thinking !== "off" ? thinking : undefined;
  const limit = reasoning ? "max_completion_tokens" : "max_tokens";
  return {
    ...(runtime.temperature !== undefined ? { temperature: runtime.temperature } : {}),
    ...(runtime.maxOutputTokens !== undefined ? { [limit]: runtime.maxOutputTokens } : {}),
    ...(reasoning ? { reasoning_effort: reasoning } : {}),
  };
}

/** OpenAI-compatible Chat Completions, with the tool loop run by the service (SPEC §7). */
export async function runOpenAi(input: RunInput): Promise<RunOutcome> {
  const runtime = input.agent.runtime;
  if (runtime.type !== "openai") return { kind: "failed", error: "not an openai agent", retryable: false };
  const apiKey = runtime.apiKeyEnv ? input.secret(runtime.apiKeyEnv) : undefined;
  if (runtime.apiKeyEnv && !apiKey)
    return { kind: "failed", error: `secret ${runtime.apiKeyEnv} is not set`, retryable: false };
  const extra = secretHeaders(runtime, input.secret);
  if (!extra.ok) return { kind: "failed", error: extra.error, retryable: false };
  const secrets = [apiKey, ...Object.values(extra.headers)];
  const url = `${runtime.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  const parameters = callParameters(runtime, input.agent.thinking);
  const chat = chatHistory(input);
  let usage: RunUsage | undefined;
  const appended: TranscriptMessage[] = [];
  const tools = input.tools.map((tool) => ({ type: "function", function: tool }));
  for (let round = 0; round < MAX_TOOL_ROUNDS; round++) {
    // Messages steered into the run reach the model as user messages before this round.
    for (const steered of input.takeSteering()) chat.push({ role: "user", content: messageText(steered) });
    let response: Response;
    try {
      response = await fetch(url, {
        method: "POST",
        headers: {
          ...extra.headers,
          "Content-Type": "application/json",
          ...(apiKey ? { Authorization: `Bearer ${apiKey}` } : {}),
        },
        body: JSON.stringify({
          model: runtime.model,
          messages: chat,
          ...parameters,
          ...(tools.length > 0 ? { tools } : {}),
          // Streamed so watchers see the reply as it is written (SPEC §14); usage comes in the last chunk.
          stream: true,
          stream_options: { include_usage: true },
        }),
        signal: input.signal,
      });
    } catch (cause) {
      return { kind: "failed", ...describeFetchFailure("model API", cause, input.signal) };
    }
    if (!response.ok)
      return { kind: "failed", ...(await describeHttpFailure("model API", response, secrets)) };
    const answer = await readCompletion(response, input.signal, input.onDelta, secrets);
    if (!answer.ok) return { kind: "failed", error: answer.error, retryable: answer.retryable };
    const { content, calls, finishReason, usage: reported } = answer.completion;
    const callUsage = callUsageOf(reported);
    usage = addCallUsage(usage, callUsage);
    const stopReason = stopReasonOf(finishReason, calls.length > 0);
    const text = content ?? "";
    if (calls.length === 0) {
      if (text) appended.push(assistantMessage(input, textContent(text), stopReason, callUsage));
      return { kind: "done", text, ...(usage ? { usage } : {}), messages: appended };
    }
    // What the model said along with its calls stays: in the transcript, and in what it reads next round.
    chat.push({ role: "assistant", content, tool_calls: calls });
    const callBlocks = calls.map((call) => ({
      type: "toolCall" as const,
      id: call.id,
      name: call.function.name,
      arguments: safeJson(call.function.arguments),
    }));
    appended.push(assistantMessage(input, [...textContent(text), ...callBlocks], stopReason, callUsage));
    for (const call of calls) {
      const result = await input.callTool(call.function.name, safeJson(call.function.arguments));
      chat.push({ role: "tool", tool_call_id: call.id, content: JSON.stringify(result) });
      appended.push(toolResultMessage(input.runId, { id: call.id, name: call.function.name }, result));
    }
  }
  return {
    kind: "failed",
    error: `model did not answer within ${MAX_TOOL_ROUNDS} tool rounds`,
    retryable: false,
  };
}

/** A tool call's arguments; raw text when they are not JSON or nest too deep to store (src/limits.ts). */
function safeJson(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return nestsDeeperThan(value, MAX_TOOL_ARGUMENTS_DEPTH) ? { _raw: text } : value;
  } catch {
    return { _raw: text };
  }
}
