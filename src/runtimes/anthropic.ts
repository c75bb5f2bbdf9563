import { createAnthropic } from "@ai-sdk/anthropic";
import { newWatch, watchedFetch } from "./answer-watch";
import { runModelLoop } from "./model-loop";
import { ANTHROPIC_DEFAULT_MAX_TOKENS, ANTHROPIC_THINKING_BUDGETS, modelCredentials } from "./model-settings";
import type { RunInput, RunOutcome } from "./types";

/** Anthropic's prompt-cache breakpoint, on the system prompt and the last tool definition. */
const CACHE_MARK = { anthropic: { cacheControl: { type: "ephemeral" } } };

/**
 * Anthropic's Messages API (`<baseUrl>/v1/messages`, `x-api-key`, `anthropic-version`), streamed, through
 * the AI SDK's provider; Switchboard's own tool loop (model-loop.ts) drives it one step at a time.
 */
export async function runAnthropic(input: RunInput): Promise<RunOutcome> {
  const runtime = input.agent.runtime;
  if (runtime.type !== "anthropic")
    return { kind: "failed", error: "not an anthropic agent", retryable: false };
  const extra = modelCredentials(runtime, input.secret);
  if (!extra.ok) return { kind: "failed", error: extra.error, retryable: false };
  const { apiKey } = extra;
  const watch = { current: newWatch() };
  const provider = createAnthropic({
    fetch: watchedFetch(() => watch.current),
    baseURL: `${runtime.baseUrl.replace(/\/+$/, "")}/v1`,
    // Without a key of its own (an AI Gateway holding it, authorised by a header) no x-api-key is sent.
    apiKey: apiKey ?? "",
    headers: { ...(apiKey ? {} : { "x-api-key": undefined }), ...extra.headers } as Record<string, string>,
  });
  const level = input.agent.thinking ?? "off";
  return runModelLoop(input, {
    model: provider.messages(runtime.model),
    callOptions: {
      maxOutputTokens: runtime.maxOutputTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
      ...(runtime.temperature !== undefined ? { temperature: runtime.temperature } : {}),
      // `off` sends no thinking field at all: the model's default (none), as before thinking existed.
      ...(level === "off"
        ? {}
        : {
            providerOptions: {
              anthropic: { thinking: { type: "enabled", budgetTokens: ANTHROPIC_THINKING_BUDGETS[level] } },
            },
          }),
    },
    cacheMark: CACHE_MARK,
    secrets: [apiKey, ...Object.values(extra.headers)],
    watch,
  });
}
