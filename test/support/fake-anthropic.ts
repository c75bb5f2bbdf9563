/**
 * Anthropic's Messages API for the fake services server (fake-services-server.ts), spoken as Anthropic
 * streams it: `message_start`, per block `content_block_start` / `_delta` (`text_delta`, `input_json_delta`,
 * `thinking_delta`, `signature_delta`) / `_stop`, `message_delta` with the usage and `stop_reason`,
 * `message_stop`. Node code, like the server. Scenarios (`POST /anthropic/<scenario>[/<param>]/v1/messages`):
 *
 *   echo            answers the last user text; usage: 11 uncached input, 3 cache-read, 5 cache-write, 7 output
 *                   (Anthropic always reports usage; the AI SDK refuses a message_start without it)
 *   tools           no tool_result yet: a tool_use of the tool <param> (default: the first offered) with the
 *                   last user text as input (a JSON object, else `{ text }`), after the text "Looking it up.";
 *                   afterwards answers `tool said: <last tool_result>`. When the request asks for extended
 *                   thinking, every answer starts with a signed thinking block.
 *   tools-flaky     as tools, but the first request that carries a tool_result (per user text) answers
 *                   HTTP 529 `overloaded_error`: the run retries and must replay its recorded tool call
 *   slow/<ms>       echo after <ms> milliseconds (aborts)
 *   rate-limited/<s> HTTP 429 `rate_limit_error` with `retry-after: <s>`
 *   overloaded      HTTP 529 `overloaded_error`
 *   overloaded-stream  a stream that starts answering, then an SSE `error` event `overloaded_error`
 *   garbage         200 `text/event-stream` whose events are not JSON
 *   echo-auth       HTTP 401 quoting the request's x-api-key
 *   status-<n>      HTTP <n> with an `api_error` body
 */

type Json = { [key: string]: unknown };
export type SseEvent = { event: string; data: string };
export type AnthropicReply = {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  events?: SseEvent[];
  delayMs?: number;
};

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const objectsOf = (value: unknown): Json[] => (Array.isArray(value) ? value.filter(isObject) : []);

/** The text of a message's content: a string, or its text (and tool_result) blocks joined. */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  return objectsOf(content)
    .flatMap((block) =>
      block.type === "text"
        ? [String(block.text)]
        : block.type === "tool_result"
          ? [textOf(block.content)]
          : [],
    )
    .join("\n");
}

const piecesOf = (text: string, count: number): string[] => {
  const size = Math.max(1, Math.ceil(text.length / count));
  const pieces: string[] = [];
  for (let at = 0; at < text.length; at += size) pieces.push(text.slice(at, at + size));
  return pieces;
};

type Block =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: string }
  | { type: "thinking"; thinking: string; signature: string };

const event = (type: string, data: Json): SseEvent => ({
  event: type,
  data: JSON.stringify({ type, ...data }),
});

/** A message as Anthropic streams it; `usage` false leaves every usage field out. */
function messageEvents(model: unknown, blocks: Block[], stopReason: string): SseEvent[] {
  const events = [
    event("message_start", {
      message: {
        id: `msg_${Math.random().toString(36).slice(2)}`,
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: 11,
          cache_read_input_tokens: 3,
          cache_creation_input_tokens: 5,
          output_tokens: 1,
        },
      },
    }),
    { event: "ping", data: JSON.stringify({ type: "ping" }) },
  ];
  for (const [index, block] of blocks.entries()) {
    if (block.type === "text") {
      events.push(event("content_block_start", { index, content_block: { type: "text", text: "" } }));
      for (const text of piecesOf(block.text, 3))
        events.push(event("content_block_delta", { index, delta: { type: "text_delta", text } }));
    } else if (block.type === "tool_use") {
      const head = { type: "tool_use", id: block.id, name: block.name, input: {} };
      events.push(event("content_block_start", { index, content_block: head }));
      for (const partial_json of piecesOf(block.input, 3))
        events.push(
          event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json } }),
        );
    } else {
      events.push(event("content_block_start", { index, content_block: { type: "thinking", thinking: "" } }));
      events.push(
        event("content_block_delta", { index, delta: { type: "thinking_delta", thinking: block.thinking } }),
      );
      events.push(
        event("content_block_delta", {
          index,
          delta: { type: "signature_delta", signature: block.signature },
        }),
      );
    }
    events.push(event("content_block_stop", { index }));
  }
  events.push(
    event("message_delta", {
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: 7 },
    }),
  );
  events.push(event("message_stop", {}));
  return events;
}

const failure = (
  status: number,
  type: string,
  message: string,
  headers?: Record<string, string>,
): AnthropicReply => ({
  status,
  body: { type: "error", error: { type, message } },
  ...(headers ? { headers } : {}),
});

/** Requests with a tool_result seen per user text, for `tools-flaky`. */
const flakyResults = new Map<string, number>();

/** The fake Messages API's answer to one request, by scenario; `undefined` for an unknown scenario. */
export function anthropic(
  scenario: string,
  param: string | undefined,
  request: Json,
  apiKey: string,
): AnthropicReply | undefined {
  const messages = objectsOf(request.messages);
  const lastUser = messages.findLast((message) => message.role === "user");
  const toolResults = objectsOf(lastUser?.content).filter((block) => block.type === "tool_result");
  const userText = textOf(
    messages.findLast(
      (message) =>
        message.role === "user" && !objectsOf(message.content).some((block) => block.type === "tool_result"),
    )?.content,
  );
  const thinking = isObject(request.thinking) && request.thinking.type === "enabled";
  const thought: Block[] = thinking
    ? [{ type: "thinking", thinking: "Let me think.", signature: "sig-fake-1" }]
    : [];
  const stream = (blocks: Block[], stop: string): AnthropicReply => ({
    status: 200,
    events: messageEvents(request.model, [...thought, ...blocks], stop),
  });
  const status = Number(/^status-(\d{3})$/.exec(scenario)?.[1]);
  if (status) return failure(status, "api_error", `fake anthropic status ${status}`);
  switch (scenario) {
    case "echo":
      return stream([{ type: "text", text: userText }], "end_turn");
    case "slow":
      return { ...stream([{ type: "text", text: userText }], "end_turn"), delayMs: Number(param ?? 1000) };
    case "tools-flaky":
    case "tools": {
      if (scenario === "tools-flaky" && toolResults.length > 0) {
        const seen = (flakyResults.get(userText) ?? 0) + 1;
        flakyResults.set(userText, seen);
        if (seen === 1) return failure(529, "overloaded_error", "Overloaded");
      }
      if (toolResults.length > 0)
        return stream(
          [{ type: "text", text: `tool said: ${textOf(toolResults.at(-1)?.content)}` }],
          "end_turn",
        );
      const name = param ?? String(objectsOf(request.tools)[0]?.name ?? "missing_tool");
      const parsed = (() => {
        try {
          return JSON.parse(userText) as unknown;
        } catch {
          return undefined;
        }
      })();
      const input = JSON.stringify(isObject(parsed) ? parsed : { text: userText });
      const round = messages.filter((message) => message.role === "assistant").length;
      return stream(
        [
          { type: "text", text: "Looking it up." },
          { type: "tool_use", id: `toolu_${round + 1}`, name, input },
        ],
        "tool_use",
      );
    }
    case "rate-limited":
      return failure(429, "rate_limit_error", "Number of requests has exceeded your rate limit", {
        "retry-after": param ?? "1",
      });
    case "overloaded":
      return failure(529, "overloaded_error", "Overloaded");
    case "overloaded-stream": {
      const started = messageEvents(
        request.model,
        [{ type: "text", text: "Partial answ" }],
        "end_turn",
      ).slice(0, 4);
      return {
        status: 200,
        events: [...started, event("error", { error: { type: "overloaded_error", message: "Overloaded" } })],
      };
    }
    case "garbage":
      return { status: 200, events: [{ event: "message_start", data: "<html>Bad gateway</html>" }] };
    case "echo-auth":
      return failure(401, "authentication_error", `invalid x-api-key: ${apiKey}`);
  }
}
