import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
  SharedV4ProviderMetadata,
} from "@ai-sdk/provider";
import { type AnswerWatch, sawGarbageEvents } from "./answer-watch";
import { describeModelError, type ModelFailure } from "./model-errors";

/** One tool call the model asked for in a step, its arguments as the raw JSON text it wrote. */
export interface StepToolCall {
  toolCallId: string;
  toolName: string;
  input: string;
}

/** What one model call produced, read to the end of its stream. */
export interface ModelStep {
  text: string;
  /** The model's reasoning, with the provider's metadata (Anthropic's signature) to send back with it. */
  reasoning: Array<{ text: string; providerMetadata?: SharedV4ProviderMetadata }>;
  calls: StepToolCall[];
  finishReason: string;
  usage: LanguageModelV4Usage | undefined;
}

const SEEN_NO_FINISH = "model API stream ended before the answer did";

/**
 * One model call through the provider's LanguageModel (`doStream`): each piece of answer text goes to
 * `onDelta` as it arrives; whatever the provider throws or streams as an error becomes a run failure
 * (model-errors.ts), never an exception out of the runtime.
 */
export async function streamModelStep(
  model: LanguageModelV4,
  options: LanguageModelV4CallOptions,
  onDelta: (text: string) => void,
  secrets: readonly (string | undefined)[],
  watch: AnswerWatch,
): Promise<{ ok: true; step: ModelStep } | ModelFailure> {
  const step: ModelStep = { text: "", reasoning: [], calls: [], finishReason: "", usage: undefined };
  const reasoning = new Map<string, { text: string; providerMetadata?: SharedV4ProviderMetadata }>();
  let reader: ReadableStreamDefaultReader<LanguageModelV4StreamPart> | undefined;
  try {
    reader = (await model.doStream(options)).stream.getReader();
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      const part = next.value;
      if (part.type === "error") return describeModelError(part.error, options.abortSignal, secrets, watch);
      if (part.type === "text-delta") {
        step.text += part.delta;
        // A failing watcher is not a broken model stream; an empty piece (a role chunk's `""`) is no delta.
        if (part.delta) safely(() => onDelta(part.delta));
      } else if (part.type === "reasoning-start" || part.type === "reasoning-delta") {
        const block = reasoning.get(part.id) ?? { text: "" };
        if (part.type === "reasoning-delta") block.text += part.delta;
        if (part.providerMetadata) block.providerMetadata = part.providerMetadata;
        reasoning.set(part.id, block);
      } else if (part.type === "reasoning-end") {
        const block = reasoning.get(part.id);
        if (block && part.providerMetadata) block.providerMetadata = part.providerMetadata;
      } else if (part.type === "tool-call" && !part.providerExecuted) {
        step.calls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
      } else if (part.type === "finish") {
        step.finishReason = part.finishReason.unified;
        step.usage = part.usage;
      }
    }
  } catch (cause) {
    return describeModelError(cause, options.abortSignal, secrets, watch);
  } finally {
    // Stopping early (an error part) cancels the rest of the call.
    await reader?.cancel().catch(() => {});
  }
  if (options.abortSignal?.aborted) return describeModelError(undefined, options.abortSignal, secrets);
  // Some providers skip events they cannot parse: an answer made of those is garbage, not an empty reply.
  if (!step.text && step.calls.length === 0 && sawGarbageEvents(watch))
    return describeModelError(new Error("unreadable events"), undefined, secrets, {
      ...watch,
      brokeOff: undefined,
    });
  if (!step.finishReason || step.finishReason === "interrupted" || step.finishReason === "error")
    return { ok: false, error: SEEN_NO_FINISH, retryable: true };
  step.reasoning = [...reasoning.values()].filter((block) => block.text || block.providerMetadata);
  return { ok: true, step };
}

function safely(action: () => void): void {
  try {
    action();
  } catch (cause) {
    console.error("a run's delta watcher failed", cause);
  }
}
