// The outside world of the console check, as one real HTTP server on loopback (the offline browser
// context and the Worker both reach 127.0.0.1):
//   POST /model/v1/chat/completions  an OpenAI-compatible model: streams `replyTo(last user message)` a
//                                    word at a time, DELTA_MS apart, so a page can see the reply half-written
//   POST /agent                      a webhook agent that takes the run and answers 202: its run stays
//                                    `running` until someone kills it (nothing ever posts its result)
//   POST /channel                    a channel's outbound webhook: 400 (a 4xx can never work, so the ledger
//                                    gives up at once: `failed`) until `acceptDeliveries()`, then 200
// Requests without the right key or signature are refused, so the check also proves the secrets arrive.
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer } from "node:http";
import { HOST, sleep } from "./harness.mjs";

const DELTA_MS = 150;

/** The secrets the Worker is given for the world (`--var`s), and that the world checks. */
export const WORLD_SECRETS = {
  BROWSER_CHECK_MODEL_KEY: "browser-check-model-key",
  BROWSER_CHECK_AGENT_SECRET: "browser-check-agent-secret",
  BROWSER_CHECK_CHANNEL_SECRET: "browser-check-channel-secret",
};

/** What the mock model answers to a message: the words it streams, in order. */
export function replyTo(message) {
  return `Streaming reply to "${message}" from the mock model, one word at a time.`;
}

/** `X-Switchboard-Signature` for `body` (SPEC §8): the channel bridge signs its inbound posts with it. */
export function sign(secret, body, unixSeconds = Math.floor(Date.now() / 1000)) {
  const mac = createHmac("sha256", secret).update(`${unixSeconds}.${body}`).digest("hex");
  return `t=${unixSeconds},v1=${mac}`;
}

function signedBy(secret, header, body) {
  const timestamp = /t=(\d+)/.exec(header ?? "")?.[1];
  const given = /v1=([0-9a-f]+)/.exec(header ?? "")?.[1];
  if (!timestamp || !given) return false;
  const expected = Buffer.from(sign(secret, body, Number(timestamp)).split("v1=")[1], "hex");
  const actual = Buffer.from(given, "hex");
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

async function readBody(request) {
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
}

const lastUserText = (messages) =>
  [...(messages ?? [])].reverse().find((message) => message.role === "user")?.content ?? "";

/** Streams the reply as chat.completion.chunk events; stops early when the Worker hangs up (a kill). */
async function streamCompletion(request, response, text) {
  response.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
  const chunk = (delta, finish = null) =>
    `data: ${JSON.stringify({ object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  let open = true;
  request.socket.once("close", () => {
    open = false;
  });
  response.write(chunk({ role: "assistant", content: "" }));
  for (const word of text.match(/\S+\s*/g) ?? []) {
    await sleep(DELTA_MS);
    if (!open) return;
    response.write(chunk({ content: word }));
  }
  response.write(chunk({}, "stop"));
  response.write(
    `data: ${JSON.stringify({ object: "chat.completion.chunk", choices: [], usage: { prompt_tokens: 12, completion_tokens: 14, total_tokens: 26 } })}\n\n`,
  );
  response.end("data: [DONE]\n\n");
}

/** Starts the world on a free loopback port. */
export async function startOutsideWorld() {
  const seen = { agentRuns: [], channelPosts: [] };
  let channelAccepts = false;
  const server = createServer(async (request, response) => {
    const body = await readBody(request);
    const json = body ? JSON.parse(body) : {};
    const answer = (status, value) => {
      response.writeHead(status, { "Content-Type": "application/json" });
      response.end(JSON.stringify(value));
    };
    if (request.url === "/model/v1/chat/completions") {
      if (request.headers.authorization !== `Bearer ${WORLD_SECRETS.BROWSER_CHECK_MODEL_KEY}`)
        return answer(401, { error: { message: "bad API key" } });
      const text = replyTo(lastUserText(json.messages));
      if (json.stream) return streamCompletion(request, response, text);
      return answer(200, { choices: [{ index: 0, message: { role: "assistant", content: text } }] });
    }
    const signature = request.headers["x-switchboard-signature"];
    if (request.url === "/agent") {
      if (!signedBy(WORLD_SECRETS.BROWSER_CHECK_AGENT_SECRET, signature, body))
        return answer(401, { error: "bad signature" });
      seen.agentRuns.push(json);
      return answer(202, { accepted: true });
    }
    // Telegram's own view of the demo bot's webhook, for the console's channel page.
    if (/^\/telegram\/bot[^/]+\/getWebhookInfo$/.test(request.url ?? ""))
      return answer(200, {
        ok: true,
        result: {
          url: "https://switchboard.example.com/v1/channels/telegram/messages",
          pending_update_count: 0,
          last_error_date: Math.floor(Date.now() / 1000) - 3600,
          last_error_message: "Wrong response from the webhook: 503 Service Unavailable",
          allowed_updates: ["message", "edited_message", "channel_post", "edited_channel_post"],
        },
      });
    if (request.url === "/channel") {
      if (!signedBy(WORLD_SECRETS.BROWSER_CHECK_CHANNEL_SECRET, signature, body))
        return answer(401, { error: "bad signature" });
      seen.channelPosts.push({ ...json, accepted: channelAccepts });
      return channelAccepts ? answer(200, { ok: true }) : answer(400, { error: "chat not reachable yet" });
    }
    answer(404, { error: `no ${request.method} ${request.url} here` });
  });
  await new Promise((resolve) => server.listen(0, HOST, resolve));
  return {
    url: `http://${HOST}:${server.address().port}`,
    seen,
    /** From now on the channel webhook answers 200. */
    acceptDeliveries() {
      channelAccepts = true;
    },
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
