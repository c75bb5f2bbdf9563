// The Chat Completions model alone: `createOpenAI` would bundle every OpenAI API (Responses, images, audio).
import { OpenAIChatLanguageModel } from "@ai-sdk/openai/internal";
import type { LanguageModelV4Usage } from "@ai-sdk/provider";
import { newWatch, watchedFetch } from "./answer-watch";
import { runModelLoop } from "./model-loop";
import { modelCredentials } from "./model-settings";
import { UNKNOWN_USAGE, withFinishUsage } from "./model-usage";
import { jsonAsEventStream } from "./openai-json";
import type { RunInput, RunOutcome } from "./types";

/** Token counts as Chat Completions reports them; any may be missing. */
type ReportedUsage = {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  total_tokens?: number | null;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
};

/**
 * The usage the server reported, no more: the provider reads missing counts as 0 (and cache reads as 0
 * when the server says nothing of its cache), so a count it did not send is put back to unknown.
 */
function reportedOnly(usage: LanguageModelV4Usage): LanguageModelV4Usage {
  const raw = usage.raw as ReportedUsage | undefined;
  if (!raw || (raw.prompt_tokens == null && raw.completion_tokens == null && raw.total_tokens == null))
    return UNKNOWN_USAGE;
  const cached = raw.prompt_tokens_details?.cached_tokens ?? undefined;
  return {
    ...usage,
    inputTokens: {
      ...usage.inputTokens,
      total: raw.prompt_tokens ?? undefined,
      cacheRead: cached,
    },
    outputTokens: { ...usage.outputTokens, total: raw.completion_tokens ?? undefined },
  };
}

/**
 * OpenAI-compatible Chat Completions (`<baseUrl>/chat/completions`, bearer key), streamed with usage,
 * through the AI SDK's OpenAI provider's Chat Completions model (compatible servers speak no other API);
 * Switchboard's own tool loop (model-loop.ts) drives it one step at a time.
 */
export async function runOpenAi(input: RunInput): Promise<RunOutcome> {
  const runtime = input.agent.runtime;
  if (runtime.type !== "openai") return { kind: "failed", error: "not an openai agent", retryable: false };
  const extra = modelCredentials(runtime, input.secret);
  if (!extra.ok) return { kind: "failed", error: extra.error, retryable: false };
  const { apiKey } = extra;
  const watch = { current: newWatch() };
  const baseUrl = runtime.baseUrl.replace(/\/+$/, "");
  const model = new OpenAIChatLanguageModel(runtime.model, {
    provider: "openai.chat",
    url: ({ path }) => `${baseUrl}${path}`,
    // Without a key (a local server, or a gateway authorised by a header) no Authorization is sent.
    headers: { ...(apiKey ? { Authorization: `Bearer ${apiKey}` } : {}), ...extra.headers },
    fetch: jsonAsEventStream(watchedFetch(() => watch.current)),
  });
  const level = input.agent.thinking ?? "off";
  const reasoning = level === "off" ? undefined : level;
  return runModelLoop(input, {
    model: withFinishUsage(model, reportedOnly),
    callOptions: {
      ...(runtime.temperature !== undefined ? { temperature: runtime.temperature } : {}),
      // OpenAI's reasoning models take `max_completion_tokens`, not `max_tokens`, which every compatible
      // server knows: the first for a call with a reasoning effort, else the second.
      ...(runtime.maxOutputTokens !== undefined && !reasoning
        ? { maxOutputTokens: runtime.maxOutputTokens }
        : {}),
      providerOptions: {
        openai: {
          // The system prompt stays a `system` message whatever the model's name (the provider would make
          // it `developer` for models it knows reason); compatible servers know no other role.
          systemMessageMode: "system",
          ...(reasoning ? { reasoningEffort: reasoning } : {}),
          ...(reasoning && runtime.maxOutputTokens !== undefined
            ? { maxCompletionTokens: runtime.maxOutputTokens }
            : {}),
        },
      },
    },
    secrets: [apiKey, ...Object.values(extra.headers)],
    notesInPlace: true,
    watch,
  });
}
