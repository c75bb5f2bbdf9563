/**
 * A stand-in for the Workers AI binding `AI`, as the workers-ai runtime receives it (RunInput.ai): its
 * `run(model, inputs, options)` answers a ReadableStream of Workers AI's event stream (`data: {"response":…}`
 * pieces, `tool_calls` chunks as Workers AI streams them, a usage chunk, `data: [DONE]`), by scenario:
 *
 *   echo        answers the last user message, usage 9 + 4
 *   no-usage    echo without a usage chunk
 *   tools       no `tool` message yet: calls the first tool offered with the last user message as its
 *               arguments (a JSON object, else `{ text }`); afterwards answers `tool said: <last tool message>`
 *   garbage     a stream of events that are not JSON
 *   throws      the binding throws, as it does for a failed inference (`3040: Capacity temporarily exceeded`)
 *
 * Every call is recorded: `calls` holds the model, the inputs and the options (gateway, signal) it got.
 */
export type AiCall = { model: string; inputs: Record<string, unknown>; options: Record<string, unknown> };

type Message = { role: string; content?: unknown; tool_calls?: unknown };

const sse = (chunks: Array<object | string>): ReadableStream<Uint8Array> => {
  const text = chunks
    .map((chunk) => `data: ${typeof chunk === "string" ? chunk : JSON.stringify(chunk)}\n\n`)
    .join("");
  const bytes = new TextEncoder().encode(text);
  // In two pieces, split mid-event, as a network delivers them.
  const middle = Math.floor(bytes.length / 2);
  return new ReadableStream({
    start(controller) {
      controller.enqueue(bytes.slice(0, middle));
      controller.enqueue(bytes.slice(middle));
      controller.close();
    },
  });
};

const pieces = (text: string): string[] => {
  const size = Math.max(1, Math.ceil(text.length / 3));
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out;
};

/** A fake `AI` binding playing `scenario`; read `calls` afterwards. */
export function fakeWorkersAi(scenario: string): { ai: Ai; calls: AiCall[] } {
  const calls: AiCall[] = [];
  const run = async (
    model: string,
    inputs: Record<string, unknown>,
    options: Record<string, unknown> = {},
  ) => {
    calls.push({ model, inputs, options });
    const messages = (inputs.messages ?? []) as Message[];
    const lastOf = (role: string) =>
      String(messages.findLast((message) => message.role === role)?.content ?? "");
    const usage = { response: "", usage: { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 } };
    const answer = (text: string, withUsage = true) =>
      sse([...pieces(text).map((response) => ({ response })), ...(withUsage ? [usage] : []), "[DONE]"]);
    switch (scenario) {
      case "echo":
        return answer(lastOf("user"));
      case "no-usage":
        return answer(lastOf("user"), false);
      case "tools": {
        if (messages.some((message) => message.role === "tool"))
          return answer(`tool said: ${lastOf("tool")}`);
        const tools = (inputs.tools ?? []) as Array<{ function?: { name?: string }; name?: string }>;
        const name = tools[0]?.function?.name ?? tools[0]?.name ?? "missing_tool";
        let args: unknown;
        try {
          args = JSON.parse(lastOf("user"));
        } catch {
          args = { text: lastOf("user") };
        }
        const json = JSON.stringify(args);
        return sse([
          { tool_calls: [{ id: "chatcmpl-tool-1", type: "function", index: 0, function: { name } }] },
          ...pieces(json).map((part) => ({ tool_calls: [{ index: 0, function: { arguments: part } }] })),
          { response: "", finish_reason: "tool_calls" },
          usage,
          "[DONE]",
        ]);
      }
      case "garbage":
        return sse(["<html>upstream error</html>"]);
      case "throws":
        throw new Error("3040: Capacity temporarily exceeded, please try again.");
    }
    throw new Error(`no fake Workers AI scenario ${scenario}`);
  };
  return { ai: { run } as unknown as Ai, calls };
}
