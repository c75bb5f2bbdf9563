/**
 * The chat platforms' APIs as the outbound half of SPEC §21 calls them, served by the fake services'
 * server (fake-services-server.ts) under three prefixes — a channel's `apiBaseUrl`:
 *
 *   <url>/telegram   POST /bot<token>/sendMessage, sendChatAction, editMessageText, deleteMessage  (key: chat_id)
 *                    POST /bot<token>/createForumTopic                 (key: chat_id; `not_forum` refuses)
 *   <url>/slack      POST /chat.postMessage, chat.update, chat.delete, Bearer token (key: channel),
 *                    POST /assistant.threads.setStatus                  (key: channel_id)
 *   <url>/discord    POST /channels/<id>/messages, POST /channels/<id>/typing, Bot token (key: the channel id)
 *                    POST /channels/<id>/messages/<msg>/threads        (key: the channel id; the thread's id is the message's)
 *                    POST /users/@me/channels {recipient_id}           (answers the DM channel `dm-<id>`)
 *                    POST /webhooks/<app>/<token>, PATCH|DELETE …/messages/@original (key: the interaction token)
 *
 * and the setup calls of `switchboard channels connect|status` (src/platforms/setup.ts):
 *
 *   <url>/telegram   POST /bot<token>/setWebhook, GET /bot<token>/getWebhookInfo   (key: `webhook-<bot id>`)
 *   <url>/slack      POST /auth.test, Bearer token                                   (key: `auth-test`)
 *   <url>/discord    PUT|GET /applications/<app>/commands, Bot token               (key: `commands-<app>`)
 *                    GET /applications/@me, Bot token                              (key: `app-me`)
 *
 * Every call is recorded under `platform:<key>` (read with `recorded`/`callsArrived`), and answered as the
 * platform would: success, or what `POST /platform-script/<key>` told it for the key's next calls, in
 * order — `{ answers: ["ok", "rate_limit:<s>", "blocked", "not_found", "server_error", "bad_request",
 * "not_modified" (Telegram's answer to an edit that changes nothing)], plus `none` for Discord's GET of
 * commands: none registered),
 * rejectFormatting?: true }` (`rejectFormatting`: Telegram refuses every `parse_mode` message with
 * "can't parse entities"). Runs in Node, with fake-services-server.ts; plain TypeScript, no Node API.
 */
/** A reply as fake-services-server.ts writes it. */
type PlatformReply = { status: number; body: unknown; headers?: Record<string, string> };
type Json = { [key: string]: unknown };

/** Each key's scripted answers, and whether its Telegram chat refuses formatting. */
const scripts = new Map<string, { answers: string[]; rejectFormatting: boolean }>();
let nextMessageId = 1000;

/** Takes a script for `key` (`POST /platform-script/<key>`). */
export function setPlatformScript(key: string, body: Json): PlatformReply {
  const answers = Array.isArray(body.answers) ? body.answers.map(String) : [];
  scripts.set(key, { answers, rejectFormatting: body.rejectFormatting === true });
  return { status: 200, body: { ok: true } };
}

/** Each Telegram bot's webhook as `setWebhook` left it (by bot id), for `getWebhookInfo`. */
const webhooks = new Map<string, Json>();
/** Each Discord application's commands as the last PUT left them, for the GET. */
const commands = new Map<string, unknown[]>();

/** The next scripted answer for `key` ("ok" once its script is spent). */
const nextAnswer = (key: string) => scripts.get(key)?.answers.shift() ?? "ok";

function telegram(answer: string, key: string, method: string, json: Json): PlatformReply {
  const refused = (status: number, description: string, parameters?: Json) => ({
    status,
    body: { ok: false, error_code: status, description, ...(parameters ? { parameters } : {}) },
  });
  if (scripts.get(key)?.rejectFormatting && json.parse_mode)
    return refused(400, "Bad Request: can't parse entities: Character '.' is reserved and must be escaped");
  const [kind, param] = answer.split(":");
  if (kind === "rate_limit")
    return refused(429, `Too Many Requests: retry after ${param}`, { retry_after: Number(param) });
  if (kind === "blocked") return refused(403, "Forbidden: bot was blocked by the user");
  if (kind === "not_found") return refused(400, "Bad Request: chat not found");
  if (kind === "bad_request") return refused(400, "Bad Request: message text is empty");
  if (kind === "not_modified")
    return refused(
      400,
      "Bad Request: message is not modified: specified new message content and reply markup are exactly the same",
    );
  if (kind === "server_error") return refused(502, "Bad Gateway");
  if (method === "sendChatAction" || method === "deleteMessage")
    return { status: 200, body: { ok: true, result: true } };
  const id = method === "editMessageText" ? Number(json.message_id) : nextMessageId++;
  const message = { message_id: id, chat: { id: json.chat_id }, text: json.text };
  return { status: 200, body: { ok: true, result: message } };
}

/** `createForumTopic`: a topic, or Telegram's refusal for a chat that is not a forum. */
function forumTopic(answer: string, json: Json): PlatformReply {
  const refused = (status: number, description: string) => ({
    status,
    body: { ok: false, error_code: status, description },
  });
  if (answer === "not_forum") return refused(400, "Bad Request: the chat is not a forum");
  if (answer === "blocked") return refused(403, "Forbidden: bot is not a member of the supergroup chat");
  const topic = { message_thread_id: nextMessageId++, name: json.name, icon_color: 7322096 };
  return { status: 200, body: { ok: true, result: topic } };
}

function slack(answer: string, json: Json): PlatformReply {
  const [kind, param] = answer.split(":");
  if (kind === "rate_limit")
    return { status: 429, body: { ok: false, error: "ratelimited" }, headers: { "Retry-After": `${param}` } };
  const error = {
    blocked: "not_in_channel",
    not_found: "channel_not_found",
    bad_request: "invalid_arguments",
  }[kind ?? ""];
  if (error) return { status: 200, body: { ok: false, error } };
  if (kind === "server_error") return { status: 503, body: { ok: false, error: "service_unavailable" } };
  const ts =
    typeof json.ts === "string"
      ? json.ts
      : `${Math.floor(Date.now() / 1000)}.${String(nextMessageId++).padStart(6, "0")}`;
  return { status: 200, body: { ok: true, channel: json.channel, ts } };
}

function discord(answer: string, method: string, json: Json): PlatformReply {
  const [kind, param] = answer.split(":");
  const refused = (status: number, message: string, code: number, extra: Json = {}) => ({
    status,
    body: { message, code, ...extra },
  });
  if (kind === "rate_limit")
    return refused(429, "You are being rate limited.", 0, { retry_after: Number(param), global: false });
  if (kind === "blocked") return refused(403, "Missing Access", 50001);
  if (kind === "not_found") return refused(404, "Unknown Channel", 10003);
  if (kind === "bad_request") return refused(400, "Cannot send an empty message", 50006);
  if (kind === "server_error") return refused(500, "Internal Server Error", 0);
  if (method === "DELETE") return { status: 204, body: undefined };
  return { status: 200, body: { id: String(nextMessageId++), content: json.content } };
}

/**
 * The stand-in's answer to a request under `/telegram`, `/slack` or `/discord`, after recording it under
 * its key; undefined for anything else. `record(key)` records the request; `list` is a body that is a
 * JSON array (Discord's commands), which `json` shows as `{}`.
 */
export function platformReply(
  method: string,
  segments: string[],
  json: Json,
  headers: Record<string, string | string[] | undefined>,
  record: (key: string) => void,
  list?: unknown[],
): PlatformReply | undefined {
  const [service, ...rest] = segments;
  const path = rest.join("/");
  const setup = setupReply(service, method, path, json, headers, record, list);
  if (setup) return setup;
  const telegramMethod = /^bot[^/]+\/(sendMessage|sendChatAction|editMessageText|deleteMessage)$/.exec(
    path,
  )?.[1];
  if (service === "telegram" && method === "POST" && telegramMethod) {
    const key = String(json.chat_id);
    record(key);
    return telegram(nextAnswer(key), key, telegramMethod, json);
  }
  if (service === "telegram" && method === "POST" && /^bot[^/]+\/createForumTopic$/.test(path)) {
    const key = String(json.chat_id);
    record(key);
    return forumTopic(nextAnswer(key), json);
  }
  if (service === "slack" && method === "POST" && SLACK_METHODS.has(path)) {
    const key = String(json.channel ?? json.channel_id);
    record(key);
    if (!`${headers.authorization}`.startsWith("Bearer "))
      return { status: 200, body: { ok: false, error: "not_authed" } };
    return slack(nextAnswer(key), json);
  }
  if (service !== "discord") return undefined;
  if (method === "POST" && path === "users/@me/channels") {
    record(`dm-open:${json.recipient_id}`);
    return { status: 200, body: { id: `dm-${json.recipient_id}`, type: 1 } };
  }
  const threadStart = /^channels\/([^/]+)\/messages\/([^/]+)\/threads$/.exec(path);
  if (method === "POST" && threadStart) {
    const [, parent = "", message = ""] = threadStart;
    record(parent);
    if (!`${headers.authorization}`.startsWith("Bot "))
      return { status: 401, body: { message: "401: Unauthorized", code: 0 } };
    const refused = discord(nextAnswer(parent), method, json);
    if (refused.status !== 200) return refused;
    // A thread started from a message has that message's id (a public thread, type 11).
    return { status: 201, body: { id: message, type: 11, parent_id: parent, name: json.name } };
  }
  const channel = /^channels\/([^/]+)\/(messages|typing)$/.exec(path)?.[1];
  const hook = /^webhooks\/\d+\/([^/]+)(\/messages\/@original)?$/.exec(path);
  const key = channel ?? hook?.[1];
  if (!key) return undefined;
  record(key);
  if (channel && !`${headers.authorization}`.startsWith("Bot "))
    return { status: 401, body: { message: "401: Unauthorized", code: 0 } };
  return discord(nextAnswer(key), method, json);
}

/** The Web API methods of a reply (SPEC §21 Outbound and Live). */
const SLACK_METHODS = new Set([
  "chat.postMessage",
  "chat.update",
  "chat.delete",
  "assistant.threads.setStatus",
]);

/**
 * `setWebhook`/`getWebhookInfo` (a pending update and a last error, as a live bot shows), Slack's
 * `auth.test`, Discord's `applications/@me` and its commands (a GET answers what the last PUT set).
 */
function setupReply(
  service: string | undefined,
  method: string,
  path: string,
  json: Json,
  headers: Record<string, string | string[] | undefined>,
  record: (key: string) => void,
  list: unknown[] | undefined,
): PlatformReply | undefined {
  const telegramCall = /^bot(\d+):[^/]+\/(setWebhook|getWebhookInfo)$/.exec(path);
  if (service === "telegram" && telegramCall) {
    const [, botId = "", name] = telegramCall;
    const key = `webhook-${botId}`;
    record(key);
    if (nextAnswer(key) === "bad_request")
      return { status: 400, body: { ok: false, error_code: 400, description: "Bad Request: bad webhook" } };
    if (name === "setWebhook") {
      webhooks.set(botId, json);
      return { status: 200, body: { ok: true, result: true, description: "Webhook was set" } };
    }
    const set = webhooks.get(botId);
    const result = set
      ? {
          url: set.url,
          has_custom_certificate: false,
          pending_update_count: 2,
          last_error_date: 1767225600,
          last_error_message: "Wrong response from the webhook: 503 Service Unavailable",
          allowed_updates: set.allowed_updates,
        }
      : { url: "", has_custom_certificate: false, pending_update_count: 0 };
    return { status: 200, body: { ok: true, result } };
  }
  if (service === "slack" && path === "auth.test") {
    record("auth-test");
    if (nextAnswer("auth-test") === "bad_request" || !`${headers.authorization}`.startsWith("Bearer "))
      return { status: 200, body: { ok: false, error: "invalid_auth" } };
    return { status: 200, body: { ok: true, ...SLACK_AUTH } };
  }
  if (service !== "discord") return undefined;
  const unauthorized = { status: 401, body: { message: "401: Unauthorized", code: 0 } };
  if (method === "GET" && path === "applications/@me") {
    record("app-me");
    if (!`${headers.authorization}`.startsWith("Bot ") || nextAnswer("app-me") === "bad_request")
      return unauthorized;
    return { status: 200, body: DISCORD_APP };
  }
  const app = /^applications\/([^/]+)\/commands$/.exec(path)?.[1];
  if (!app || (method !== "PUT" && method !== "GET")) return undefined;
  record(`commands-${app}`);
  if (!`${headers.authorization}`.startsWith("Bot ")) return unauthorized;
  if (method === "PUT") commands.set(app, list ?? []);
  if (method === "PUT") return { status: 200, body: list ?? [] };
  // A scripted `none`: the application as it is before any `connect` (the PUT alone never reads a script).
  return { status: 200, body: nextAnswer(`commands-${app}`) === "none" ? [] : (commands.get(app) ?? []) };
}

/** Whom the tests' Slack token belongs to, as `auth.test` says (the stand-in's `/slack` root). */
export const SLACK_AUTH = {
  url: "https://switchboard-test.slack.com/",
  team: "Switchboard Test",
  team_id: "T0SWITCH",
  user: "switchboard",
  user_id: "U0SWITCH",
  bot_id: "B0SWITCH",
};

/** The tests' Discord application, as `GET /applications/@me` shows it. */
export const DISCORD_APP = {
  id: "112233445566778899",
  name: "Switchboard Test",
  interactions_endpoint_url: "https://switchboard.test/v1/channels/discord-bot/messages",
  bot: { id: "112233445566778899", username: "switchboard-test" },
};
