import { z } from "zod";
import { readSse, type SseEvent } from "../sse/reader";
import { describeFetchFailure, errorExcerpt } from "./http-errors";
import {
  type ChatToolCall,
  type Completion,
  type CompletionFailure,
  MALFORMED,
  reportedUsageSchema,
} from "./openai-completion";

/** One `chat.completion.chunk`; providers differ in what they leave out, so nearly everything is optional. */
const chunkSchema = z.object({
  choices: z
    .array(
      z.object({
        index: z.number().optional(),
        delta: z
          .object({
            content: z.string().nullable().optional(),
            tool_calls: z
              .array(
                z.object({
                  index: z.number().optional(),
                  id: z.string().nullable().optional(),
                  function: z
                    .object({
                      name: z.string().nullable().optional(),
                      arguments: z.string().nullable().optional(),
                    })
                    .optional(),
                }),
              )
              .optional(),
          })
          .nullable()
          .optional(),
        finish_reason: z.string().nullable().optional(),
      }),
    )
    .optional(),
  // With `stream_options.include_usage` every chunk says `usage: null` but the last, which has it.
  usage: reportedUsageSchema.nullable().optional(),
  error: z.object({ message: z.string().optional() }).optional(),
});
type Chunk = z.infer<typeof chunkSchema>;

/** A completion being put together from its chunks. */
class CompletionBuilder {
  text = "";
  sawChoice = false;
  finishReason: string | null | undefined;
  usage: Completion["usage"];
  /** Tool calls by their `index`: the id and name come once (the last non-empty wins), arguments in pieces. */
  #calls = new Map<number, { id: string; name: string; arguments: string }>();

  /** Takes one chunk in; answers the text it added. */
  add(chunk: Chunk): string {
    if (chunk.usage) this.usage = chunk.usage;
    // One answer was asked for (no `n`): choice 0 is it.
    const choice = chunk.choices?.find((candidate) => (candidate.index ?? 0) === 0);
    if (!choice) return "";
    this.sawChoice = true;
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    const content = choice.delta?.content ?? "";
    this.text += content;
    for (const [position, delta] of (choice.delta?.tool_calls ?? []).entries()) {
      // Some compatible servers leave `index` out and send each call whole: its place in the list then.
      const index = delta.index ?? position;
      const call = this.#calls.get(index) ?? { id: "", name: "", arguments: "" };
      if (delta.id) call.id = delta.id;
      if (delta.function?.name) call.name = delta.function.name;
      call.arguments += delta.function?.arguments ?? "";
      this.#calls.set(index, call);
    }
    return content;
  }

  /** The finished completion; `undefined` when a call never got its id or name, or no choice came. */
  completion(): Completion | undefined {
    if (!this.sawChoice) return undefined;
    const calls: ChatToolCall[] = [];
    for (const [, call] of [...this.#calls].sort(([a], [b]) => a - b)) {
      if (!call.id || !call.name) return undefined;
      calls.push({ id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } });
    }
    return {
      content: this.text === "" ? null : this.text,
      calls,
      finishReason: this.finishReason,
      usage: this.usage,
    };
  }
}

function parseChunk(data: string): Chunk | undefined {
  try {
    const parsed = chunkSchema.safeParse(JSON.parse(data));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** The next event's data (`undefined` at the end of the stream), or why the stream could not be read. */
async function nextData(
  events: AsyncGenerator<SseEvent>,
  signal: AbortSignal,
): Promise<{ ok: true; data: string | undefined } | CompletionFailure> {
  try {
    const next = await events.next();
    return { ok: true, data: next.done ? undefined : next.value.data };
  } catch (cause) {
    if (signal.aborted) return { ok: false, ...describeFetchFailure("model API", cause, signal) };
    const message = cause instanceof Error ? cause.message : String(cause);
    return { ok: false, error: `model API stream broke off: ${message}`, retryable: true };
  }
}

/**
 * A streamed completion (`stream: true`), read chunk by chunk; each piece of answer text goes to `onDelta`
 * as it arrives. A stream that breaks off, or ends before the answer did, is a retryable failure; an
 * error the stream reports is quoted with `secrets` (what the request carried) masked.
 */
export async function readCompletionStream(
  body: ReadableStream<Uint8Array>,
  signal: AbortSignal,
  onDelta: (text: string) => void,
  secrets: readonly (string | undefined)[] = [],
): Promise<{ ok: true; completion: Completion } | CompletionFailure> {
  const builder = new CompletionBuilder();
  const events = readSse(body);
  try {
    for (;;) {
      const next = await nextData(events, signal);
      if (!next.ok) return next;
      if (next.data === "[DONE]") break;
      if (next.data === undefined) {
        // Servers that end without `[DONE]` still said the answer was over with a finish reason.
        if (builder.finishReason) break;
        if (signal.aborted) return { ok: false, ...describeFetchFailure("model API", signal.reason, signal) };
        return { ok: false, error: "model API stream ended before the answer did", retryable: true };
      }
      const chunk = parseChunk(next.data);
      if (!chunk) return MALFORMED;
      if (chunk.error) {
        const said = errorExcerpt(chunk.error.message ?? "", secrets);
        return { ok: false, error: `model API stream failed${said ? `: ${said}` : ""}`, retryable: true };
      }
      const text = builder.add(chunk);
      // Outside the read's error handling: a failing watcher is not a broken model stream.
      if (text) onDelta(text);
    }
  } finally {
    // Stopping before the end (`[DONE]`, a bad chunk, an error) cancels the rest of the body.
    await events.return(undefined);
  }
  const completion = builder.completion();
  return completion ? { ok: true, completion } : MALFORMED;
}
