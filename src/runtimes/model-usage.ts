import type { LanguageModelV4, LanguageModelV4StreamPart, LanguageModelV4Usage } from "@ai-sdk/provider";

/** Usage with no token counts at all: unknown, which the loop records as none (never as zeros). */
export const UNKNOWN_USAGE: LanguageModelV4Usage = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined },
};

/**
 * `model` with the usage of each streamed step's `finish` part rewritten by `map`: where a provider
 * package fills in what the server did not report (zeros for unknown), the runtime says what was reported.
 */
export function withFinishUsage(
  model: LanguageModelV4,
  map: (usage: LanguageModelV4Usage) => LanguageModelV4Usage,
): LanguageModelV4 {
  return {
    ...model,
    provider: model.provider,
    modelId: model.modelId,
    supportedUrls: model.supportedUrls,
    doGenerate: (options) => model.doGenerate(options),
    doStream: async (options) => {
      const result = await model.doStream(options);
      const stream = result.stream.pipeThrough(
        new TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart>({
          transform(part, controller) {
            controller.enqueue(part.type === "finish" ? { ...part, usage: map(part.usage) } : part);
          },
        }),
      );
      return { ...result, stream };
    },
  };
}
