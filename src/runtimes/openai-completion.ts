import { z } from "zod";

/** A tool call as Chat Completions names it, and as it goes back to the model in the next round. */
export interface ChatToolCall {
  id: string;
  type?: "function";
  function: { name: string; arguments: string };
}

/** The usage a model reports for one call; any field may be missing. */
export const reportedUsageSchema = z
  .object({ prompt_tokens: z.number(), completion_tokens: z.number(), total_tokens: z.number() })
  .partial();
export type ReportedUsage = z.infer<typeof reportedUsageSchema>;

/** One model call's answer, however it arrived (one JSON body or a stream of chunks). */
export interface Completion {
  /** The answer's text, `null` when the model said none (it goes back to the model as it came). */
  content: string | null;
  calls: ChatToolCall[];
  finishReason?: string | null;
  usage?: ReportedUsage;
}

/** A model call that did not produce a completion, as a run error. */
export type CompletionFailure = { ok: false; error: string; retryable: boolean };

export const MALFORMED: CompletionFailure = {
  ok: false,
  error: "model API answered a malformed completion",
  retryable: false,
};

const toolCallSchema = z.object({
  id: z.string(),
  type: z.literal("function").optional(),
  function: z.object({ name: z.string(), arguments: z.string() }),
});
const completionSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          role: z.string().optional(),
          content: z.string().nullable().optional(),
          tool_calls: z.array(toolCallSchema).optional(),
        }),
        finish_reason: z.string().nullable().optional(),
      }),
    )
    .min(1),
  // Some compatible servers say `usage: null` for a call they did not count: unknown, like none at all.
  usage: reportedUsageSchema.nullable().optional(),
});

/** A whole `chat.completion` body (a server that ignored `stream: true`, or answered JSON anyway). */
export function completionOf(json: unknown): Completion | undefined {
  const parsed = completionSchema.safeParse(json);
  if (!parsed.success) return undefined;
  const choice = parsed.data.choices[0] ?? { message: {}, finish_reason: undefined };
  return {
    content: choice.message.content ?? null,
    calls: choice.message.tool_calls ?? [],
    finishReason: choice.finish_reason,
    usage: parsed.data.usage ?? undefined,
  };
}
