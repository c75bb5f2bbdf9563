// `npm run demo`'s Telegram step (SPEC §21): a stand-in of the Telegram Bot API on loopback that answers
// `sendMessage` as Telegram does and prints what it received, and a Telegram-shaped chat against it — a
// private-chat Update posted to the `telegram` channel with its secret token, the bot's reply arriving at
// the stand-in through the outbox and the Queue. The token never leaves the process: the stand-in
// prints the method, not the path that carries it.
import { hkdfSync } from "node:crypto";
import { createServer } from "node:http";

/** The bot token the demo gives its `telegram` channel (config/demo.json botTokenEnv). */
export const DEMO_TELEGRAM_TOKEN = "7000000001:demo-telegram-bot-token";

/**
 * The Bot API stand-in: `POST /bot<token>/sendMessage` recorded (the demo waits on `next`), and the live
 * calls of a run (SPEC §21 Live: `sendChatAction`, `editMessageText`, `deleteMessage`) answered and printed.
 */
const METHODS = new Set(["sendMessage", "sendChatAction", "editMessageText", "deleteMessage"]);
export function startTelegramStandIn(port, host, log) {
  const received = [];
  const waiting = [];
  let messageId = 500;
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      const method = /^\/bot([^/]+)\/(\w+)$/.exec(request.url ?? "");
      if (!method || method[1] !== DEMO_TELEGRAM_TOKEN || !METHODS.has(method[2])) {
        response.writeHead(404, { "Content-Type": "application/json" });
        return response.end(JSON.stringify({ ok: false, error_code: 404, description: "Not Found" }));
      }
      const json = JSON.parse(body);
      log(`   telegram stand-in: ${method[2]} ${JSON.stringify(json)}`);
      const id = method[2] === "editMessageText" ? json.message_id : messageId++;
      const message = { message_id: id, chat: { id: json.chat_id }, date: 0, text: json.text };
      const result = method[2] === "sendMessage" || method[2] === "editMessageText" ? message : true;
      response.writeHead(200, { "Content-Type": "application/json" });
      response.end(JSON.stringify({ ok: true, result }));
      if (method[2] === "sendMessage") received.push(json);
      for (const waiter of [...waiting]) waiter();
    });
  });
  server.listen(port, host);
  const next = (predicate, timeoutMs = 20_000) =>
    new Promise((resolve, reject) => {
      const check = () => {
        const found = received.find(predicate);
        if (!found) return false;
        waiting.splice(waiting.indexOf(check), 1);
        clearTimeout(timer);
        resolve(found);
        return true;
      };
      const timer = setTimeout(() => reject(new Error("no sendMessage arrived in time")), timeoutMs);
      waiting.push(check);
      check();
    });
  return { server, next };
}

/** The secret token Switchboard derives for a channel without `secretTokenEnv` (given to setWebhook). */
const secretToken = (signingKey, channel) =>
  Buffer.from(
    hkdfSync("sha256", signingKey, "switchboard purpose keys", `switchboard/channel/${channel}/v1`, 32),
  ).toString("base64url");

/** 6. A Telegram private chat: a signed Update in, the bot's reply out at the stand-in. */
export async function telegramChat(base, standIn, signingKey, log) {
  log("── 6. Telegram: a private message → run → sendMessage at the Bot API stand-in");
  const t0 = Date.now();
  const messageId = Math.floor(Date.now() / 1000) % 1_000_000;
  const update = {
    update_id: messageId,
    message: {
      message_id: messageId,
      date: Math.floor(Date.now() / 1000),
      from: { id: 4242, is_bot: false, first_name: "Ada", username: "ada" },
      chat: { id: 4242, type: "private", first_name: "Ada" },
      text: "hello from Telegram",
    },
  };
  const response = await fetch(`${base}/v1/channels/telegram/messages`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      "X-Telegram-Bot-Api-Secret-Token": secretToken(signingKey, "telegram"),
    },
    body: JSON.stringify(update),
  });
  const accepted = await response.json();
  log(`   HTTP ${response.status} in ${since(t0)}: run ${accepted.runId} on ${accepted.sessionKey}`);
  const reply = await standIn.next((json) => json.reply_parameters?.message_id === messageId);
  log(`   reply at the stand-in in ${since(t0)}, to chat ${reply.chat_id}: "${reply.text}"`);
}

const since = (t0) => `${Date.now() - t0} ms`;
