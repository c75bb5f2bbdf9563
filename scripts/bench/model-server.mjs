// A stand-in model API for the first-delta figure: answers `POST …/chat/completions` with `stream: true`
// as OpenAI streams it (SSE chunks, then `[DONE]`), its first piece of text after a fixed think time, and
// notes for every request how long it took from the request's arrival to writing that first piece.
import { createServer } from "node:http";
import { freePort, HOST } from "./server.mjs";
import { wallNow } from "./sse-client.mjs";

/** What the stand-in waits before its first piece of text: a fast hosted model's time to first token. */
export const THINK_MS = 200;
const PIECES = ["Streaming ", "reply ", "from ", "the ", "bench ", "model."];
const PIECE_GAP_MS = 5;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts the stand-in on a free loopback port. Resolves to { baseUrl, requests, close }: `requests`
 * lists, in order, each request's wall-clock `arrivedAt` and `firstChunkAt` (its first text written).
 */
export async function startModelServer() {
  const requests = [];
  const server = createServer(async (request, response) => {
    const timing = { arrivedAt: wallNow() };
    let raw = "";
    for await (const piece of request) raw += piece;
    const body = JSON.parse(raw || "{}");
    if (!request.url?.endsWith("/chat/completions") || body.stream !== true) {
      response.writeHead(400, { "Content-Type": "application/json" });
      return response.end(JSON.stringify({ error: { message: "the bench model only streams" } }));
    }
    response.writeHead(200, { "Content-Type": "text/event-stream; charset=utf-8" });
    response.flushHeaders();
    requests.push(timing);
    const base = { id: `bench-${requests.length}`, object: "chat.completion.chunk", model: body.model };
    const chunk = (delta, finish = null) =>
      `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    await sleep(THINK_MS);
    for (const [index, text] of PIECES.entries()) {
      response.write(chunk(index === 0 ? { role: "assistant", content: text } : { content: text }));
      if (index === 0) timing.firstChunkAt = wallNow();
      await sleep(PIECE_GAP_MS);
    }
    response.write(chunk({}, "stop"));
    const usage = { prompt_tokens: 20, completion_tokens: PIECES.length, total_tokens: 20 + PIECES.length };
    response.write(`data: ${JSON.stringify({ ...base, choices: [], usage })}\n\n`);
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
