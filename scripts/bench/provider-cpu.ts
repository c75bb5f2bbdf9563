// `node scripts/bench/provider-cpu.mjs`: the CPU one streamed model step costs through the AI SDK's
// OpenAI Chat Completions model (runtimes/openai.ts) and its Anthropic provider (runtimes/anthropic.ts),
// both on Switchboard's loop, reading the same answer (80 text pieces plus usage) from an in-memory fetch,
// so only parsing and the runtime's own work count. Prints both and the ratio (README "Model providers").
import { runAnthropic } from "../../src/runtimes/anthropic";
import { runOpenAi } from "../../src/runtimes/openai";
import type { RunInput } from "../../src/runtimes/types";

const PIECES = Array.from({ length: 80 }, (_, i) => `word${i} `);

function openAiBody(): string {
  const chunk = (delta: object, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  return [
    chunk({ role: "assistant", content: "" }),
    ...PIECES.map((content) => chunk({ content })),
    chunk({}, "stop"),
    `data: ${JSON.stringify({ id: "c", choices: [], usage: { prompt_tokens: 11, completion_tokens: 80, total_tokens: 91 } })}\n\n`,
    "data: [DONE]\n\n",
  ].join("");
}

function anthropicBody(): string {
  const event = (type: string, data: object) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  return [
    event("message_start", {
      message: {
        id: "m",
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-5",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 11, output_tokens: 1 },
      },
    }),
    event("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
    ...PIECES.map((text) => event("content_block_delta", { index: 0, delta: { type: "text_delta", text } })),
    event("content_block_stop", { index: 0 }),
    event("message_delta", {
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: { output_tokens: 80 },
    }),
    event("message_stop", {}),
  ].join("");
}

const bodies = { openai: openAiBody(), anthropic: anthropicBody() };
globalThis.fetch = async (request) => {
  const url = String(request instanceof Request ? request.url : request);
  const body = url.includes("/v1/messages") ? bodies.anthropic : bodies.openai;
  return new Response(body, { headers: { "Content-Type": "text/event-stream" } });
};

function input(runtime: Record<string, unknown>): RunInput {
  const agent = {
    id: "bench",
    runtime,
    model: "bench",
    fallbacks: [],
    sandbox: false,
  } as unknown as RunInput["agent"];
  return {
    runId: "r",
    agent,
    sessionKey: "agent:bench:main",
    sessionId: "s",
    message: { id: "m", role: "user", content: "hello", timestamp: 1 },
    history: [],
    system: "Be brief.",
    attachments: [],
    tools: [],
    runToken: "t",
    signal: new AbortController().signal,
    takeSteering: () => [],
    onDelta: () => {},
    callTool: async () => ({}),
    secret: () => undefined,
    purposeKey: async () => undefined,
  };
}

async function cpuOf(run: () => Promise<unknown>, rounds: number): Promise<number> {
  for (let i = 0; i < 200; i++) await run(); // warm up the JIT
  const start = process.cpuUsage();
  for (let i = 0; i < rounds; i++) await run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / rounds;
}

const openai = input({ type: "openai", baseUrl: "http://bench/v1", model: "bench" });
const anthropic = input({ type: "anthropic", baseUrl: "http://bench", model: "claude-sonnet-4-5" });
for (const [name, run] of [
  ["openai", () => runOpenAi(openai)],
  ["anthropic", () => runAnthropic(anthropic)],
] as const) {
  const check = await run();
  if (check.kind !== "done" || check.text !== PIECES.join(""))
    throw new Error(`${name} bench broken: ${JSON.stringify(check)}`);
}
const a = await cpuOf(() => runOpenAi(openai), 2000);
const b = await cpuOf(() => runAnthropic(anthropic), 2000);
console.log(
  `one streamed step: openai (AI SDK) ${a.toFixed(0)} µs CPU, anthropic (AI SDK) ${b.toFixed(0)} µs CPU; ratio ${(b / a).toFixed(2)}`,
);
