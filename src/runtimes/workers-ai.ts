import type { LanguageModelV4Usage } from "@ai-sdk/provider";
import { createWorkersAI } from "workers-ai-provider";
import { type AnswerWatch, newWatch, watchBody } from "./answer-watch";
import { runModelLoop } from "./model-loop";
import { UNKNOWN_USAGE, withFinishUsage } from "./model-usage";
import type { RunInput, RunOutcome } from "./types";

/**
 * workers-ai-provider starts every stream with zero usage and keeps it when the model reports none (its
 * placeholder's `raw` is `{ totalTokens: 0 }`, a reported one's `{ total }`): that is unknown, not zero.
 */
const unknownWhenPlaceholder = (usage: LanguageModelV4Usage): LanguageModelV4Usage =>
  usage.raw && "totalTokens" in usage.raw ? UNKNOWN_USAGE : usage;

/** The binding, its streamed answers recorded in the watch `current()` returns (model-errors.ts quotes them). */
function watchedBinding(ai: Ai, current: () => AnswerWatch): Ai {
  const run = async (model: string, inputs: unknown, options?: unknown): Promise<unknown> => {
    const answer: unknown = await (ai.run as (m: string, i: unknown, o?: unknown) => Promise<unknown>)(
      model,
      inputs,
      options,
    );
    const watch = current();
    watch.status = 200;
    return answer instanceof ReadableStream ? watchBody(answer, watch) : answer;
  };
  // The chat model calls nothing but `run` on its binding.
  return { run } as unknown as Ai;
}

/**
 * The Workers AI binding `AI` (through an AI Gateway when `gateway` is set), streamed, with function
 * calling where the model has it, through workers-ai-provider; Switchboard's own loop drives it.
 * Workers AI has no reasoning control we map: a session's thinking level is not sent (config allows `off` only).
 */
export async function runWorkersAi(input: RunInput): Promise<RunOutcome> {
  const runtime = input.agent.runtime;
  if (runtime.type !== "workers-ai")
    return { kind: "failed", error: "not a workers-ai agent", retryable: false };
  if (!input.ai)
    return {
      kind: "failed",
      error: 'the Workers AI binding AI is not bound (wrangler.toml [ai] binding = "AI")',
      retryable: false,
    };
  const watch = { current: newWatch() };
  const provider = createWorkersAI({
    binding: watchedBinding(input.ai, () => watch.current),
    ...(runtime.gateway ? { gateway: runtime.gateway } : {}),
  });
  return runModelLoop(input, {
    model: withFinishUsage(provider.chat(runtime.model), unknownWhenPlaceholder),
    callOptions: {
      ...(runtime.maxOutputTokens !== undefined ? { maxOutputTokens: runtime.maxOutputTokens } : {}),
      ...(runtime.temperature !== undefined ? { temperature: runtime.temperature } : {}),
    },
    secrets: [],
    watch,
  });
}
