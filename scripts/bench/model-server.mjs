// A stand-in model API for the first-delta figure: answers `POST …/chat/completions` with `stream: true`
// as OpenAI streams it (SSE chunks, then `[DONE]`), its first piece of text after a fixed think time, and
// notes for every request how long it took from the request's arrival to writing that first piece.
// The OpenClaw comparison (openclaw.mjs) starts it with no think time, and OpenClaw's gateway also asks
// it for `GET …/models` and may ask without `stream`: both are answered.
import { createServer } from "node:http";
import { freePort, HOST } from "./server.mjs";
import { wallNow } from "./sse-client.mjs";

/** What the stand-in waits before its first piece of text: a fast hosted model's time to first token. */
export const THINK_MS = 200;
const PIECES = ["Streaming ", "reply ", "from ", "the ", "bench ", "model."];
const PIECE_GAP_MS = 5;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The reply to the agent-to-agent steps both services run after a send (their own skip tokens). */
function stepReply(body) {
  const texts = (body.messages ?? [])
    .filter((message, index, all) => message.role === "system" || index === all.length - 1)
    .map((message) =>
      typeof message.content === "string" ? message.content : JSON.stringify(message.content),
    );
  // Both word the steps alike (OpenClaw's `Agent-to-agent reply step:`, ours `… reply step 1 of at most 2.`):
  // skipping them keeps the exchange after a measured send-and-wait to the same few turns on each side.
  if (texts.some((text) => text.includes("Agent-to-agent announce step"))) return "ANNOUNCE_SKIP";
  if (texts.some((text) => text.includes("Agent-to-agent reply step"))) return "REPLY_SKIP";
  return undefined;
}

const sendJson = (response, status, value) => {
  response.writeHead(status, { "Content-Type": "application/json" });
  response.end(JSON.stringify(value));
};

/**
 * Starts the stand-in on a free loopback port. Resolves to { baseUrl, requests, close }: `requests`
 * lists, in order, each request's wall-clock `arrivedAt` and `firstChunkAt` (its first text written).
 * `thinkMs` and `pieceGapMs` (defaults THINK_MS and 5 ms) set its pace.
 */
export async function startModelServer({ thinkMs = THINK_MS, pieceGapMs = PIECE_GAP_MS } = {}) {
  const requests = [];
  const server = createServer(async (request, response) => {
    const timing = { arrivedAt: wallNow() };
    let raw = "";
    for await (const piece of request) raw += piece;
    if (request.method === "GET" && request.url?.endsWith("/models"))
      return sendJson(response, 200, { object: "list", data: [{ id: "bench-model", object: "model" }] });
    const body = JSON.parse(raw || "{}");
    if (!request.url?.endsWith("/chat/completions"))
      return sendJson(response, 404, { error: { message: "the bench model only serves chat completions" } });
    const skip = stepReply(body);
    const pieces = skip ? [skip] : PIECES;
    const usage = { prompt_tokens: 20, completion_tokens: pieces.length, total_tokens: 20 + pieces.length };
    const base = {
      id: `bench-${requests.length + 1}`,
      model: body.model,
      created: Math.floor(Date.now() / 1000),
    };
    if (body.stream !== true) {
      requests.push(timing);
      if (thinkMs) await sleep(thinkMs);
      timing.firstChunkAt = wallNow();
      const message = { role: "assistant", content: pieces.join("") };
      return sendJson(response, 200, {
        ...base,
        object: "chat.completion",
        choices: [{ index: 0, message, finish_reason: "stop" }],
        usage,
      });
    }
    response.writeHead(200, { "Content-Type": "text/event-stream; charset=utf-8" });
    response.flushHeaders();
    requests.push(timing);
    const chunkBase = { ...base, object: "chat.completion.chunk" };
    const chunk = (delta, finish = null) =>
      `data: ${JSON.stringify({ ...chunkBase, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    if (thinkMs) await sleep(thinkMs);
    for (const [index, text] of pieces.entries()) {
      response.write(chunk(index === 0 ? { role: "assistant", content: text } : { content: text }));
      if (index === 0) timing.firstChunkAt = wallNow();
      if (pieceGapMs) await sleep(pieceGapMs);
    }
    response.write(chunk({}, "stop"));
    response.write(`data: ${JSON.stringify({ ...chunkBase, choices: [], usage })}\n\n`);
    response.end("data: [DONE]\n\n");
  });
  const port = await freePort();
  await new Promise((resolve) => server.listen(port, HOST, resolve));
  return {
    baseUrl: `http://${HOST}:${port}/v1`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}
