import { z } from "zod";
import { ModelAnswerError } from "./model-errors";

/** The usage as reported, handed on whole (the provider reads its fields, cache details included). */
const usageSchema = z.looseObject({});

const completionSchema = z.object({
  id: z.string().nullish(),
  created: z.number().nullish(),
  model: z.string().nullish(),
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullish(),
          tool_calls: z
            .array(
              z.object({
                id: z.string(),
                type: z.literal("function").optional(),
                function: z.object({ name: z.string(), arguments: z.string() }),
              }),
            )
            .nullish(),
        }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
  // Some compatible servers say `usage: null` for a call they did not count: unknown, like none at all.
  usage: usageSchema.nullish(),
});

/**
 * A whole `chat.completion` as the chunks OpenAI would have streamed it: its text as one delta, each tool
 * call whole (with its index), the finish reason, then the usage; `undefined` when it is not a completion.
 */
function completionAsEvents(json: unknown): string | undefined {
  const parsed = completionSchema.safeParse(json);
  if (!parsed.success) return undefined;
  const { id, created, model, choices, usage } = parsed.data;
  const choice = choices[0] ?? { message: {}, finish_reason: undefined };
  const base = { id: id ?? "", object: "chat.completion.chunk", created, model };
  const delta = {
    role: "assistant",
    content: choice.message.content ?? null,
    ...(choice.message.tool_calls?.length
      ? {
          tool_calls: choice.message.tool_calls.map((call, index) => ({
            index,
            id: call.id,
            type: "function",
            function: call.function,
          })),
        }
      : {}),
  };
  const chunks = [
    { ...base, choices: [{ index: 0, delta, finish_reason: choice.finish_reason ?? "stop" }] },
    ...(usage ? [{ ...base, choices: [], usage }] : []),
  ];
  return `${chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join("")}data: [DONE]\n\n`;
}

/**
 * A `fetch` under the AI SDK's OpenAI provider for servers that answer plain JSON despite `stream: true`
 * (some compatible ones do; the provider would read such a body as an empty stream): a successful answer
 * that is not an event stream is read whole and handed on as the event stream it stands for, so watchers
 * still see its text, as one delta. A JSON answer that is not a completion fails the call as malformed.
 */
export function jsonAsEventStream(inner: typeof fetch): typeof fetch {
  return async (request, init) => {
    const response = await inner(request, init);
    const type = (response.headers.get("Content-Type") ?? "").toLowerCase();
    if (!response.ok || type.includes("text/event-stream")) return response;
    // A body that cannot be read to the end (an abort, a dropped connection) throws: not a malformed answer.
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const events = completionAsEvents(json);
    if (events === undefined) throw new ModelAnswerError("model API answered a malformed completion", false);
    const headers = new Headers(response.headers);
    headers.set("Content-Type", "text/event-stream");
    return new Response(events, { status: response.status, headers });
  };
}
