import type { ModelRuntime, ThinkingLevel } from "../config/schema";

/**
 * Anthropic's extended-thinking budget per level, in tokens (1,024 is Anthropic's minimum). The request's
 * `max_tokens` is the output allowance plus this budget, so it always exceeds it.
 */
export const ANTHROPIC_THINKING_BUDGETS: Record<Exclude<ThinkingLevel, "off">, number> = {
  minimal: 1024,
  low: 4096,
  medium: 10_000,
  high: 32_000,
};

/** Anthropic requires `max_tokens`: this much when the runtime sets no `maxOutputTokens` (SPEC §20). */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

/**
 * A runtime's `headers` with their values read from secrets; a missing secret fails the run naming it
 * (never a value). The values join the secrets masked in any error the run reports.
 */
function secretHeaders(
  runtime: ModelRuntime,
  secret: (name: string) => string | undefined,
): { ok: true; headers: Record<string, string> } | { ok: false; error: string } {
  const headers: Record<string, string> = {};
  if (runtime.type === "workers-ai") return { ok: true, headers };
  for (const [name, { env }] of Object.entries(runtime.headers ?? {})) {
    const value = secret(env);
    if (!value) return { ok: false, error: `secret ${env} (header ${name}) is not set` };
    headers[name] = value;
  }
  return { ok: true, headers };
}

/**
 * What an HTTP model runtime is handed from secrets: its API key (`apiKeyEnv`, none when it names none) and
 * its `headers`; a named secret that is not set fails the run naming it, never its value.
 */
export function modelCredentials(
  runtime: Extract<ModelRuntime, { type: "openai" | "anthropic" }>,
  secret: (name: string) => string | undefined,
): { ok: true; apiKey: string | undefined; headers: Record<string, string> } | { ok: false; error: string } {
  const apiKey = runtime.apiKeyEnv ? secret(runtime.apiKeyEnv) : undefined;
  if (runtime.apiKeyEnv && !apiKey) return { ok: false, error: `secret ${runtime.apiKeyEnv} is not set` };
  const extra = secretHeaders(runtime, secret);
  return extra.ok ? { ok: true, apiKey, headers: extra.headers } : extra;
}
