/**
 * The outside world for tests: a real HTTP server on 127.0.0.1, started by vitest's `globalSetup` in Node
 * on the port vitest.config.ts picked (`FAKE_SERVICES_PORT`); workerd reaches it at `env.FAKE_SERVICES_URL`.
 * The scenario is chosen by the URL path, so tests never share state:
 *
 *   POST /openai/<scenario>[/<param>][/rec-<id>]/chat/completions   an OpenAI-compatible model API
 *     echo          answers the last user message
 *     usage         echo, with usage 11 + 7 = 18
 *     length        as usage, but cut short: finish_reason "length"
 *     cached        echo, with usage 11 + 7 = 18 of which 8 prompt tokens read from the cache
 *     tools         no `tool` message yet: calls the tool <param> (default: the first tool offered) with the
 *                   last user message as arguments if it is a JSON object, else `{ text }`; afterwards
 *                   answers `tool said: <last tool message>`. Usage 10 + 5 = 15 per round.
 *     tools-text    as tools, but the call comes with the text "Looking it up." and no usage (the answer has it)
 *     loop          always calls the tool <param> (default: the first offered), never answers
 *     tools-slow    as tools, but the round after the tool call answers 1.5 s later (a crash mid-run)
 *     slow-tool/<ms> no `tool` message yet: calls sessions_list after <ms> milliseconds; afterwards
 *                   echoes the last user message (a message steered in meanwhile comes after the tool)
 *     slow/<ms>     echo after <ms> milliseconds (timeouts, aborts)
 *     drip/<ms>     echo, streamed with <ms> milliseconds before each piece of text (a reply written over seconds)
 *     stall/<ms>    echo, but the body stops after a few bytes for <ms> milliseconds (abort mid-body)
 *     malformed     200 with JSON that is not a completion
 *     rate-limited/<s>  HTTP 429 with `retry-after: <s>`
 *     status-<n>    HTTP <n> with `{ error: { message } }`
 *     fail-on/<text> HTTP 500 when the request's messages contain <text> (a compaction's summarizing call), else echo
 *     echo-auth[/<n>] HTTP 401 quoting the API key of the request's Authorization header, after <n> filler
 *                   characters (default 0), as a server echoing the credential it refused would
 *     broken        echo, streamed, but the connection drops after the first piece of text
 *     cut-short     echo, streamed, but the stream ends cleanly after the first piece of text (no finish, no [DONE])
 *   A request with `stream: true` gets its completion as OpenAI streams it (`text/event-stream`: a comment, a
 *   role chunk, the text in 3 pieces, each tool call's name then its arguments in 3 pieces, the finish chunk,
 *   a usage chunk when `stream_options.include_usage`, `[DONE]`; every event written in two halves, split
 *   mid-byte-sequence); a path segment `as-json` (`/openai/tools/as-json/rec-1/...`) answers JSON regardless.
 *   POST /webhook/<scenario>[/<param>][/rec-<id>][?secret=<s>]         an agent webhook
 *     Every scenario first checks X-Switchboard-Signature (HMAC-SHA256 of "t.body", 300 s tolerance) with
 *     `?secret=`, else the key the service derives for the agent, and answers 401 if it is bad.
 *     sync          `{ text: "webhook got: <message text>", usage: { input: 4, output: 2, total: 6 } }`
 *     async         202
 *     no-text       200 `{ usage }` without text
 *     slow/<ms>     sync after <ms> milliseconds;  stall/<ms>  as for /openai
 *     status-<n>    HTTP <n>
 *     echo-token    HTTP 400 quoting the run token it was posted
 *   POST /channel/<scenario>[/<param>]                                   a channel's outbound webhook
 *     Checks the signature like /webhook, then records the delivery under `channel:<body.sessionKey>`.
 *     ok            200
 *     flaky/<n>     500 for the first <n> posts of each idempotencyKey, then 200
 *   POST /receiver/<scenario>[/<param>]/rec-<id>                         an outbound webhook's receiver (SPEC §22)
 *     Records every POST (the test checks its X-Switchboard-Signature with the key derived for webhooks).
 *     ok            200
 *     flaky/<n>     500 for the first <n> posts of each Idempotency-Key header, then 200
 *     status-<n>    HTTP <n>
 *   POST /anthropic/<scenario>[/<param>][/rec-<id>]/v1/messages           Anthropic's Messages API
 *     Scenarios in fake-anthropic.ts (echo, no-usage, tools, rate-limited, overloaded, overloaded-stream, …).
 *   GET|POST /identity/<platform>/rec-<id>/…                               a chat platform's identity call
 *     telegram …/bot<token>/getMe and slack …/auth.test (platforms/identity.ts)
 *   /telegram, /slack, /discord: the chat platforms' APIs (platforms/outbound-stand-in.ts), recorded
 *   under `platform:<chat>`; `POST /platform-script/<chat>` scripts their answers.
 *   Either service, scenario `hangup`: the connection is dropped without an answer (recorded all the same).
 *   GET /recorded/<id>   every request received with `rec-<id>` in its path, oldest first:
 *                        `[{ method, path, headers (lower-case names), body (raw text), json }]`
 *   GET /signal/<id>?count=<n>[&marker=<text>]   the same, once the n-th request (whose body contains
 *                        <text>) arrived; 408 after 15 s (fake-services-signals.ts)
 * Node code, so tsconfig.json (workerd types only) leaves it out; tests import nothing from here.
 */
import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { anthropic, type SseEvent } from "./fake-anthropic";
import { recordedUnder, recordRequest, whenRecorded } from "./fake-services-signals";
import { identityReply } from "./platforms/identity";
import { platformReply, setPlatformScript } from "./platforms/outbound-stand-in";

/** The test binding SWITCHBOARD_SIGNING_KEY, from which the service derives channel and agent secrets. */
const TEST_SIGNING_KEY = "test-signing-key-0123456789abcdef";

/**
 * The secret the service derives for one purpose (src/auth/purpose-keys.ts), computed here with Node's
 * own HKDF as a channel bridge or webhook agent would, so the labels and the scheme stay interoperable.
 */
function derivedSecret(label: string): string {
  const bits = hkdfSync("sha256", TEST_SIGNING_KEY, "switchboard purpose keys", label, 32);
  return Buffer.from(bits).toString("base64url");
}

/** A JSON object as received; its fields are unknown until read. */
type Json = { [key: string]: unknown };

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The value as an object to read fields of; `{}` when it is not one. */
const objectOf = (value: unknown): Json => (isObject(value) ? value : {});

/** The value as a list of objects; `[]` when it is not a list. */
const objectsOf = (value: unknown): Json[] => (Array.isArray(value) ? value.map(objectOf) : []);

/**
 * `delayMs`: answer that much later. `stallMs`: send a few bytes now, the rest later. `hangup`: answer
 * nothing. `events`: the body as a `text/event-stream` of these `data` values (or named events) instead of
 * JSON. `headers`: extra response headers (`retry-after`).
 * `cutAfter`: send only that many events, then drop the connection (`hangup`) or end the body.
 */
type Reply = {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
  delayMs?: number;
  stallMs?: number;
  hangup?: boolean;
  events?: Array<string | SseEvent>;
  headers?: Record<string, string>;
  cutAfter?: { events: number; hangup: boolean };
  /** A streamed reply's pause between events (the model's pace, not the test's). */
  eventGapMs?: number;
};

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Resolves after `ms`, or early when the client hangs up (an aborted fetch), so no timer outlives it. */
function delay(ms: number, request: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      request.socket.off("close", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    request.socket.once("close", done);
  });
}

const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? objectsOf(content)
          .flatMap((block) => (block.type === "text" ? [block.text] : []))
          .join("\n")
      : "";

const completion = (message: Json, usage?: [number, number], finishReason?: string): Reply => ({
  status: 200,
  body: {
    id: `chatcmpl-${Math.random().toString(36).slice(2)}`,
    object: "chat.completion",
    choices: [
      {
        index: 0,
        message: { role: "assistant", ...message },
        finish_reason: finishReason ?? (message.tool_calls ? "tool_calls" : "stop"),
      },
    ],
    ...(usage
      ? { usage: { prompt_tokens: usage[0], completion_tokens: usage[1], total_tokens: usage[0] + usage[1] } }
      : {}),
  },
});

/** `text` in `count` pieces of about equal length (whole characters), none empty. */
function piecesOf(text: string, count: number): string[] {
  const chars = Array.from(text);
  const size = Math.max(1, Math.ceil(chars.length / count));
  const pieces: string[] = [];
  for (let at = 0; at < chars.length; at += size) pieces.push(chars.slice(at, at + size).join(""));
  return pieces;
}

/** A `chat.completion` as the `data` values OpenAI streams it in (`stream: true`). */
function completionEvents(completionBody: Json, request: Json): string[] {
  const choice = objectOf(objectsOf(completionBody.choices)[0]);
  const message = objectOf(choice.message);
  const includeUsage = objectOf(request.stream_options).include_usage === true;
  const base = {
    id: completionBody.id,
    object: "chat.completion.chunk",
    created: Math.floor(Date.now() / 1000),
    model: request.model,
    ...(includeUsage ? { usage: null } : {}),
  };
  const chunk = (delta: Json, finishReason: unknown = null) =>
    JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finishReason }] });
  const content = typeof message.content === "string" ? message.content : "";
  const events = [chunk({ role: "assistant", content: "" })];
  for (const piece of piecesOf(content, 3)) events.push(chunk({ content: piece }));
  for (const [index, call] of objectsOf(message.tool_calls).entries()) {
    const fn = objectOf(call.function);
    const head = { index, id: call.id, type: "function", function: { name: fn.name, arguments: "" } };
    events.push(chunk({ tool_calls: [head] }));
    for (const piece of piecesOf(String(fn.arguments ?? ""), 3))
      events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  }
  events.push(chunk({}, choice.finish_reason));
  if (includeUsage && completionBody.usage)
    events.push(JSON.stringify({ ...base, choices: [], usage: completionBody.usage }));
  events.push("[DONE]");
  return events;
}

function toolCall(request: Json, param: string | undefined, lastUser: string): Json {
  const name = param ?? objectOf(objectOf(objectsOf(request.tools)[0]).function).name ?? "missing_tool";
  const asJson = parseJson(lastUser);
  const args = isObject(asJson) ? asJson : { text: lastUser };
  const round = objectsOf(request.messages).filter((message) => message.role === "tool").length;
  const call = {
    id: `call_${round + 1}`,
    type: "function",
    function: { name, arguments: JSON.stringify(args) },
  };
  return { content: null, tool_calls: [call] };
}

function openAi(scenario: string, param: string | undefined, request: Json): Reply | undefined {
  const messages = objectsOf(request.messages);
  const lastOf = (role: string) => textOf(messages.findLast((message) => message.role === role)?.content);
  const lastUser = lastOf("user");
  switch (scenario) {
    case "echo":
      return completion({ content: lastUser });
    case "usage":
      return completion({ content: lastUser }, [11, 7]);
    case "length":
      return completion({ content: lastUser }, [11, 7], "length");
    case "cached": {
      const reply = completion({ content: lastUser }, [11, 7]);
      const body = objectOf(reply.body);
      return {
        ...reply,
        body: { ...body, usage: { ...objectOf(body.usage), prompt_tokens_details: { cached_tokens: 8 } } },
      };
    }
    case "tools":
      return messages.some((message) => message.role === "tool")
        ? completion({ content: `tool said: ${lastOf("tool")}` }, [10, 5])
        : completion(toolCall(request, param, lastUser), [10, 5]);
    case "tools-text":
      return messages.some((message) => message.role === "tool")
        ? completion({ content: `tool said: ${lastOf("tool")}` }, [10, 5])
        : completion({ ...toolCall(request, param, lastUser), content: "Looking it up." });
    case "loop":
      return completion(toolCall(request, param, lastUser), [1, 1]);
    case "tools-slow":
      return messages.some((message) => message.role === "tool")
        ? { ...completion({ content: `tool said: ${lastOf("tool")}` }, [10, 5]), delayMs: 1500 }
        : completion(toolCall(request, param, lastUser), [10, 5]);
    case "slow-tool":
      return messages.some((message) => message.role === "tool")
        ? completion({ content: lastUser })
        : { ...completion(toolCall(request, "sessions_list", "{}")), delayMs: Number(param ?? 1000) };
    case "fail-on":
      return JSON.stringify(request.messages).includes(param ?? "")
        ? { status: 500, body: { error: { message: `refused: the request mentions "${param}"` } } }
        : completion({ content: lastUser });
    case "slow":
      return { ...completion({ content: lastUser }), delayMs: Number(param ?? 1000) };
    case "drip":
      return { ...completion({ content: lastUser }), eventGapMs: Number(param ?? 500) };
    case "stall":
      return { ...completion({ content: lastUser }), stallMs: Number(param ?? 1000) };
    case "malformed":
      return { status: 200, body: { hello: "this is not a chat completion" } };
    case "rate-limited":
      return {
        status: 429,
        body: { error: { message: "Rate limit reached" } },
        headers: { "retry-after": param ?? "1" },
      };
    case "broken":
      return { ...completion({ content: lastUser }), cutAfter: { events: 2, hangup: true } };
    case "cut-short":
      return { ...completion({ content: lastUser }), cutAfter: { events: 2, hangup: false } };
  }
}

function signatureIsValid(header: string | undefined, body: string, secret: string): boolean {
  const fields = new Map(
    (header ?? "").split(",").map((part) => part.trim().split("=", 2) as [string, string]),
  );
  const t = Number(fields.get("t"));
  const given = Buffer.from(fields.get("v1") ?? "", "hex");
  const expected = createHmac("sha256", secret).update(`${t}.${body}`).digest();
  if (!Number.isInteger(t) || Math.abs(Date.now() / 1000 - t) > 300) return false;
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function webhook(scenario: string, param: string | undefined, request: Json): Reply | undefined {
  const usage = { input: 4, output: 2, total: 6 };
  const answer = { text: `webhook got: ${textOf(objectOf(request.message).content)}`, usage };
  switch (scenario) {
    case "sync":
      return { status: 200, body: answer };
    case "async":
      return { status: 202, body: { accepted: true } };
    case "no-text":
      return { status: 200, body: { usage } };
    case "slow":
      return { status: 200, body: answer, delayMs: Number(param ?? 1000) };
    case "stall":
      return { status: 200, body: answer, stallMs: Number(param ?? 1000) };
    case "echo-token":
      return { status: 400, body: { error: { message: `run token refused: ${request.runToken}` } } };
  }
}

/** The `echo-auth` model: refuses the key it was sent and quotes it, after `pad` filler characters. */
function echoedKey(request: IncomingMessage, pad: string | undefined): Reply {
  const key = `${request.headers.authorization ?? ""}`.replace(/^Bearer\s+/i, "");
  const filler = "x".repeat(Number(pad ?? 0));
  return { status: 401, body: { error: { message: `${filler}Incorrect API key provided: ${key}` } } };
}

/** Posts seen per idempotency key, for the `flaky` channel scenario. */
const deliveryAttempts = new Map<string, number>();

function channelDelivery(scenario: string, param: string | undefined, request: Json): Reply | undefined {
  if (scenario === "ok") return { status: 200, body: { ok: true } };
  if (scenario !== "flaky") return undefined;
  const key = String(request.idempotencyKey);
  const attempt = (deliveryAttempts.get(key) ?? 0) + 1;
  deliveryAttempts.set(key, attempt);
  return attempt <= Number(param ?? 1)
    ? { status: 500, body: { error: "flaky" } }
    : { status: 200, body: { ok: true } };
}

/** An outbound webhook's receiver: `ok`, or `flaky/<n>` per Idempotency-Key (as the channel's `flaky`). */
function receiverReply(
  scenario: string,
  param: string | undefined,
  idempotencyKey: string,
): Reply | undefined {
  if (scenario === "ok") return { status: 200, body: { ok: true } };
  if (scenario !== "flaky") return undefined;
  const key = `receiver:${idempotencyKey}`;
  const attempt = (deliveryAttempts.get(key) ?? 0) + 1;
  deliveryAttempts.set(key, attempt);
  return attempt <= Number(param ?? 1)
    ? { status: 500, body: { error: "flaky" } }
    : { status: 200, body: { ok: true } };
}

function record(id: string, request: IncomingMessage, url: URL, body: string): void {
  const headers = Object.fromEntries(
    Object.entries(request.headers).map(([name, value]) => [name, `${value}`]),
  );
  const path = url.pathname + url.search;
  recordRequest(id, { method: `${request.method}`, path, headers, body, json: parseJson(body) });
}

async function route(request: IncomingMessage, url: URL, body: string): Promise<Reply> {
  const segments = url.pathname.split("/").filter(Boolean);
  const [service, scenario = ""] = segments;
  if (request.method === "GET" && service === "recorded")
    return { status: 200, body: recordedUnder(decodeURIComponent(scenario)) };
  if (request.method === "GET" && service === "signal") {
    const count = Number(url.searchParams.get("count") ?? 1);
    const marker = url.searchParams.get("marker") ?? "";
    // The connection closing while the waiter waits is the test gone; a kept-alive connection serves
    // later requests, so the listener goes with the answer.
    const arrived = await whenRecorded(decodeURIComponent(scenario), count, marker, (giveUp) => {
      request.socket.once("close", giveUp);
      return () => request.socket.off("close", giveUp);
    });
    return arrived
      ? { status: 200, body: arrived }
      : { status: 408, body: { error: `${count} request(s) under ${scenario} never arrived` } };
  }
  if (request.method === "POST" && service === "platform-script")
    return setPlatformScript(decodeURIComponent(scenario), objectOf(parseJson(body)));
  const platform = platformReply(
    `${request.method}`,
    segments,
    objectOf(parseJson(body)),
    request.headers,
    (key) => record(`platform:${key}`, request, url, body),
    [parseJson(body)].find(Array.isArray),
  );
  if (platform) return platform;
  const recordId = segments.find((segment) => segment.startsWith("rec-"))?.slice(4);
  if (recordId) record(recordId, request, url, body);
  if (scenario === "hangup") return { status: 0, hangup: true };
  // The one optional parameter comes right after the scenario: `/openai/slow/500/rec-1/chat/completions`.
  const param = [segments[2]].find(
    (segment) =>
      segment &&
      !segment.startsWith("rec-") &&
      segment !== "chat" &&
      segment !== "as-json" &&
      segment !== "v1",
  );
  const status = Number(/^status-(\d{3})$/.exec(scenario)?.[1]);
  const failure = (who: string) => ({ status, body: { error: { message: `fake ${who} status ${status}` } } });
  const unknown = { status: 404, body: { error: `no scenario ${scenario}` } };
  const json = objectOf(parseJson(body));
  if (service === "webhook") {
    const header = request.headers["x-switchboard-signature"];
    const secret =
      url.searchParams.get("secret") ?? derivedSecret(`switchboard/webhook-agent/${json.agentId}/v1`);
    if (!signatureIsValid(typeof header === "string" ? header : undefined, body, secret))
      return { status: 401, body: { error: { message: "bad X-Switchboard-Signature" } } };
    return status ? failure("webhook") : (webhook(scenario, param, json) ?? unknown);
  }
  if (service === "channel") {
    const header = request.headers["x-switchboard-signature"];
    const secret = derivedSecret(`switchboard/channel/${json.channel}/v1`);
    if (!signatureIsValid(typeof header === "string" ? header : undefined, body, secret))
      return { status: 401, body: { error: { message: "bad X-Switchboard-Signature" } } };
    record(`channel:${json.sessionKey}`, request, url, body);
    return status ? failure("channel") : (channelDelivery(scenario, param, json) ?? unknown);
  }
  if (service === "receiver") {
    if (status) return failure("receiver");
    return receiverReply(scenario, param, `${request.headers["idempotency-key"] ?? ""}`) ?? unknown;
  }
  if (service === "identity") {
    const authorization = request.headers.authorization;
    return (
      identityReply(
        scenario,
        segments.slice(2),
        typeof authorization === "string" ? authorization : undefined,
      ) ?? unknown
    );
  }
  if (service === "openai" && request.method === "POST" && url.pathname.endsWith("/chat/completions")) {
    if (status) return failure("model");
    if (scenario === "echo-auth") return echoedKey(request, param);
    const reply = openAi(scenario, param, json) ?? unknown;
    const isCompletion = objectOf(reply.body).object === "chat.completion";
    if (json.stream !== true || !isCompletion || segments.includes("as-json")) return reply;
    return { ...reply, events: completionEvents(objectOf(reply.body), json) };
  }
  if (service === "anthropic" && request.method === "POST" && url.pathname.endsWith("/v1/messages"))
    return anthropic(scenario, param, json, `${request.headers["x-api-key"] ?? ""}`) ?? unknown;
  return { status: 404, body: { error: `no route ${request.method} ${url.pathname}` } };
}

async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const url = new URL(request.url ?? "/", "http://127.0.0.1");
  // A caller that goes away mid-body (a run aborted at its timeout) rejects the read: answered like a
  // crash, to nobody, never an unhandled rejection that would stop the suite.
  const reply = await readBody(request)
    .then((body) => route(request, url, body))
    .catch(
      (error: unknown): Reply => ({
        status: 500,
        body: { error: `fake-services crashed: ${String(error)}` },
      }),
    );
  if (reply.hangup) return void request.socket.destroy();
  if (reply.delayMs) await delay(reply.delayMs, request);
  if (response.destroyed) return;
  if (reply.events) return writeEvents(reply, request, response);
  const text = reply.body === undefined ? "" : JSON.stringify(reply.body);
  response.writeHead(reply.status, { "Content-Type": "application/json", ...reply.headers });
  if (reply.stallMs) {
    response.write(text.slice(0, 8));
    await delay(reply.stallMs, request);
    if (response.destroyed) return;
  }
  response.end(reply.stallMs ? text.slice(8) : text);
}

/** Writes `reply.events` as an event stream, each event in two writes split mid-way (byte-wise). */
async function writeEvents(reply: Reply, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const events = (reply.events ?? [])
    .slice(0, reply.cutAfter?.events)
    .map((sse) =>
      typeof sse === "string" ? `data: ${sse}\n\n` : `event: ${sse.event}\ndata: ${sse.data}\n\n`,
    );
  // A comment first, as some providers send (keep-alives, "processing"): readers must skip it.
  const pieces = [": fake model streaming\n\n", ...events].map((text) => Buffer.from(text));
  response.writeHead(reply.status, { "Content-Type": "text/event-stream; charset=utf-8", ...reply.headers });
  if (reply.stallMs) {
    const bytes = Buffer.concat(pieces);
    response.write(bytes.subarray(0, 8));
    await delay(reply.stallMs, request);
    if (response.destroyed) return;
    response.write(bytes.subarray(8));
  } else {
    for (const piece of pieces) {
      // The pause comes before each piece of the reply's text (the rest of the stream is not held up).
      if (reply.eventGapMs && /"content":"[^"]/.test(piece.toString()))
        await delay(reply.eventGapMs, request);
      if (response.destroyed) return;
      const middle = Math.floor(piece.length / 2);
      response.write(piece.subarray(0, middle));
      response.write(piece.subarray(middle));
    }
  }
  if (reply.cutAfter?.hangup) {
    // Let the written events reach the client before the connection drops.
    await delay(50, request);
    return void request.socket.destroy();
  }
  response.end();
}

// vitest runs each project's globalSetup (vitest.config.ts has three projects) in the same Node process: the
// first call listens, later ones share its server, and the last teardown closes it.
const SHARED = Symbol.for("switchboard.fake-services");
type Shared = { server: Promise<Server>; users: number };
const processWide = globalThis as typeof globalThis & { [SHARED]?: Shared };

/** vitest globalSetup: listen on the port vitest.config.ts chose; the returned function closes the server. */
export default async function setup(): Promise<() => Promise<void>> {
  const port = Number(process.env.FAKE_SERVICES_PORT);
  if (!Number.isInteger(port) || port <= 0) throw new Error("vitest.config.ts must set FAKE_SERVICES_PORT");
  processWide[SHARED] ??= { server: listen(port), users: 0 };
  const shared = processWide[SHARED];
  shared.users++;
  const server = await shared.server;
  return async () => {
    if (--shared.users > 0) return;
    delete processWide[SHARED];
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
}

async function listen(port: number): Promise<Server> {
  // Whatever else a gone caller makes fail ends that one exchange, not the suite.
  const server = createServer(
    (request, response) => void handle(request, response).catch(() => response.destroy()),
  );
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error) =>
      reject(new Error(`fake services cannot listen on 127.0.0.1:${port}: ${error}`)),
    );
    server.listen(port, "127.0.0.1", resolve);
  });
  return server;
}
