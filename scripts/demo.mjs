#!/usr/bin/env node
// `npm run demo`: starts Switchboard locally with a small channel receiver on loopback and walks through
// the whole flow, printing each step with its timing:
//   1. an inbound webchat message → a run → the reply delivered back to the channel; then main's system
//      prompt (config/demo.json's instructions for main, then the run context Switchboard writes)
//   2. a tool call made by an agent's run (sessions_list), its answer delivered
//   3. sessions_send from main to research: the reply, two reply-back turns, the announce delivered
//   4. a streamed reply: chat.send with `stream: true`, the run's items printed as they arrive
//   5. a watch: sessions_send with `watch: true`, then a person writes into the watched session, and the
//      watcher's transcript gets the hidden notice `Session "…" changed (other actor). …`
//   6. a Telegram-shaped chat against a loopback stand-in of the Bot API (scripts/demo-telegram.mjs)
//   7. a scheduled job made by REST, fired now (`POST /v1/cron/jobs/{id}/run`): its isolated run, its
//      announce delivered to the channel, and the job's `runs` with the announce's delivery status
import { spawn } from "node:child_process";
import { createHmac, hkdfSync } from "node:crypto";
import { rmSync } from "node:fs";
import { createServer } from "node:http";
import { createServer as createNetServer } from "node:net";
import { d1Bindings } from "./d1-bindings.mjs";
import { readDemoConfig } from "./demo-config.mjs";
import { DEMO_TELEGRAM_TOKEN, startTelegramStandIn, telegramChat } from "./demo-telegram.mjs";

const HOST = "127.0.0.1";
// Its own local state, started fresh each time, so the demo neither sees nor touches `npm start`'s data.
const STATE_DIR = ".wrangler/demo-state";
const SIGNING_KEY = "demo-signing-key-not-for-production";
const ADMIN = "demo-admin-token";
const TOKENS = { main: "demo-main-token", research: "demo-research-token", ops: "demo-ops-token" };
const started = Date.now();
const since = (t0) => `${Date.now() - t0} ms`;
const log = (text) =>
  console.log(`[${String(((Date.now() - started) / 1000).toFixed(1)).padStart(5)}s] ${text}`);

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createNetServer().once("error", reject);
    probe.listen(0, HOST, () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

// The webchat channel has no secretEnv, so both directions are signed with the key the service derives
// for it from the signing key (`switchboard secret channel webchat` prints the same value).
const CHANNEL_SECRET = Buffer.from(
  hkdfSync("sha256", SIGNING_KEY, "switchboard purpose keys", "switchboard/channel/webchat/v1", 32),
).toString("base64url");

const sign = (body) => {
  const t = Math.floor(Date.now() / 1000);
  return `t=${t},v1=${createHmac("sha256", CHANNEL_SECRET).update(`${t}.${body}`).digest("hex")}`;
};

/** The channel side: receives deliveries, checks their signature, and lets the demo wait for them. */
function startReceiver(port) {
  const deliveries = [];
  const waiting = [];
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      const [t, v1] = (request.headers["x-switchboard-signature"] ?? "")
        .split(",")
        .map((part) => part.split("=")[1]);
      const valid = v1 === createHmac("sha256", CHANNEL_SECRET).update(`${t}.${body}`).digest("hex");
      response.writeHead(valid ? 200 : 401).end();
      if (!valid) return log("receiver: refused a delivery with a bad signature");
      const delivery = JSON.parse(body);
      deliveries.push(delivery);
      for (const waiter of [...waiting]) waiter();
    });
  });
  server.listen(port, HOST);
  const next = (predicate, timeoutMs = 20_000) =>
    new Promise((resolve, reject) => {
      const check = () => {
        const found = deliveries.find(predicate);
        if (!found) return false;
        waiting.splice(waiting.indexOf(check), 1);
        clearTimeout(timer);
        resolve(found);
        return true;
      };
      const timer = setTimeout(() => reject(new Error("no delivery arrived in time")), timeoutMs);
      waiting.push(check);
      check();
    });
  return { server, next };
}

/**
 * The demo configuration (config/demo.json), with the webchat channel pointed at our receiver and the
 * telegram channel's Bot API at our stand-in.
 */
function demoConfig(receiverUrl, telegramUrl) {
  const config = readDemoConfig();
  config.channels.webchat.webhookUrl = receiverUrl;
  config.channels.telegram.apiBaseUrl = telegramUrl;
  return JSON.stringify(config);
}

async function api(base, method, path, token, body) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { "Content-Type": "application/json", ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await response.json().catch(() => undefined);
  return { status: response.status, json };
}

async function inbound(base, message) {
  const body = JSON.stringify(message);
  const response = await fetch(`${base}/v1/channels/webchat/messages`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Switchboard-Signature": sign(body) },
    body,
  });
  return response.json();
}

/** 4. chat.send with `stream: true`: the answer is the run's event stream, read as it arrives. */
async function streamedReply(base) {
  log("── 4. a streamed reply: POST /v1/sessions/main/messages with stream: true");
  // The project's own event-stream reader (dependency-free TypeScript; Node 22 strips the types).
  const { readSse } = await import("../src/sse/reader.ts");
  const t0 = Date.now();
  const response = await fetch(`${base}/v1/sessions/main/messages`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "text/event-stream",
      Authorization: `Bearer ${TOKENS.main}`,
    },
    body: JSON.stringify({ text: "stream me a short answer", stream: true }),
  });
  log(`   HTTP ${response.status} ${response.headers.get("content-type")} in ${since(t0)}`);
  for await (const frame of readSse(response.body)) {
    const item = JSON.parse(frame.data);
    const detail =
      item.kind === "delta"
        ? ` ${JSON.stringify(item.data.text)}`
        : item.kind === "run_completed"
          ? ` reply ${JSON.stringify(item.data.reply)}`
          : "";
    log(`   id ${frame.id} ${frame.event}${detail} (${since(t0)})`);
  }
}

/**
 * 5. A watch (SPEC §13): main sends to a research session with `watch: true`; then a person writes
 * into that session over REST; main's transcript gets a hidden system notice. Looked for a few seconds
 * only, so a server without watches says so instead of failing the demo.
 */
async function watchNotice(base) {
  log("── 5. a watch: sessions_send watch: true, then a human message into the watched session");
  const watched = "agent:research:api:watched";
  await api(base, "POST", "/v1/sessions", TOKENS.research, { key: "api:watched", displayName: "Watched" });
  const t0 = Date.now();
  const sent = await api(base, "POST", "/v1/tools/sessions_send", TOKENS.main, {
    sessionKey: watched,
    message: "Keep me posted on this one",
    timeoutSeconds: 15,
    watch: true,
  });
  log(`   sessions_send: ${sent.json?.status}, watched: ${sent.json?.watched ?? "(not answered)"}`);
  const human = await api(
    base,
    "POST",
    `/v1/sessions/${encodeURIComponent(watched)}/messages`,
    TOKENS.research,
    {
      text: "A person adds: the numbers changed",
    },
  );
  log(`   human message into ${watched}: HTTP ${human.status}`);
  const deadline = Date.now() + 5_000;
  for (;;) {
    const response = await fetch(
      `${base}/v1/sessions/${encodeURIComponent("agent:main:main")}/transcript.jsonl`,
      {
        headers: { Authorization: `Bearer ${ADMIN}` },
      },
    );
    const notice = (await response.text())
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line))
      .find((message) => JSON.stringify(message.content).includes("changed (other actor)"));
    if (notice) {
      const text = typeof notice.content === "string" ? notice.content : notice.content[0]?.text;
      log(`   watch notice in agent:main:main after ${since(t0)} (${notice.role}): "${text}"`);
      return;
    }
    if (Date.now() > deadline) {
      log("   watch notice: not seen");
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Step 7: a job made by REST (an hourly one, so only `run` fires it here), its run and its announce. */
async function cronJob(base, receiver) {
  log("── 7. a scheduled job (REST), fired now: an isolated run, its answer announced to alice's chat");
  const t0 = Date.now();
  const created = await api(base, "POST", "/v1/cron/jobs", TOKENS.main, {
    jobId: "hourly-ping",
    name: "Hourly ping",
    schedule: { kind: "every", everyMs: 3_600_000 },
    payload: { kind: "agentTurn", message: "ping" },
    delivery: { mode: "announce", channel: "webchat", to: "alice" },
  });
  log(`   created (${created.status}): next run at ${new Date(created.json.nextRunAt).toISOString()}`);
  const fired = await api(base, "POST", "/v1/cron/jobs/hourly-ping/run", TOKENS.main);
  log(`   fired (${fired.status}): run ${fired.json.runId}`);
  const announced = await receiver.next((delivery) => delivery.runId === fired.json.runId);
  log(`   announce delivered in ${since(t0)} to ${announced.channel}/${announced.to}: "${announced.text}"`);
  for (let tries = 0; tries < 20; tries++) {
    const runs = await api(base, "GET", "/v1/cron/jobs/hourly-ping/runs", TOKENS.main);
    const [run] = runs.json.runs ?? [];
    if (run && run.status !== "running" && run.deliveryStatus !== "pending") {
      log(
        `   runs: ${run.status} in ${run.durationMs} ms, delivery ${run.deliveryStatus}, ${run.sessionKey}`,
      );
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error("the job's run did not settle");
}

async function main() {
  const [workerPort, receiverPort, telegramPort] = [await freePort(), await freePort(), await freePort()];
  const base = `http://${HOST}:${workerPort}`;
  const receiver = startReceiver(receiverPort);
  log(`channel receiver listening on http://${HOST}:${receiverPort}`);
  const telegram = startTelegramStandIn(telegramPort, HOST, log);
  log(`Telegram Bot API stand-in listening on http://${HOST}:${telegramPort}`);
  const vars = {
    SWITCHBOARD_CONFIG: demoConfig(
      `http://${HOST}:${receiverPort}/deliveries`,
      `http://${HOST}:${telegramPort}`,
    ),
    DEMO_TELEGRAM_TOKEN,
    SWITCHBOARD_ADMIN_TOKEN: ADMIN,
    SWITCHBOARD_AGENT_TOKENS: JSON.stringify(TOKENS),
    SWITCHBOARD_SIGNING_KEY: SIGNING_KEY,
  };
  const env = {
    ...process.env,
    CLOUDFLARE_CF_FETCH_ENABLED: "false",
    WRANGLER_SEND_METRICS: "false",
    CI: "true",
  };
  log("applying local D1 migrations and starting wrangler dev …");
  rmSync(STATE_DIR, { recursive: true, force: true });
  // Every D1 binding: each index shard (README "Scaling").
  for (const binding of d1Bindings()) {
    const migrate = spawn(
      "wrangler",
      ["d1", "migrations", "apply", binding, "--local", "--persist-to", STATE_DIR],
      {
        env,
        stdio: "ignore",
      },
    );
    await new Promise((resolve) => migrate.on("exit", resolve));
  }
  const worker = spawn(
    "wrangler",
    [
      "dev",
      "--ip",
      HOST,
      "--port",
      String(workerPort),
      "--persist-to",
      STATE_DIR,
      "--log-level",
      "error",
      "--show-interactive-dev-session=false",
      ...Object.entries(vars).flatMap(([name, value]) => ["--var", `${name}:${value}`]),
    ],
    { env, stdio: ["ignore", "ignore", "inherit"] },
  );
  const stop = () => {
    worker.kill("SIGINT");
    receiver.server.close();
    telegram.server.close();
  };
  try {
    for (let ready = false, tries = 0; !ready; tries++) {
      if (tries > 120) throw new Error("wrangler dev did not start; run `npm start` to see why");
      ready = await fetch(`${base}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (!ready) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    log(`Switchboard is up on ${base}`);

    log("── 1. inbound channel message → run → reply delivered");
    let t0 = Date.now();
    const first = await inbound(base, {
      chatType: "direct",
      chatId: "alice",
      senderId: "alice",
      text: "ping",
      messageId: `m-${Date.now()}`,
    });
    log(`   accepted in ${since(t0)}: run ${first.runId} on ${first.sessionKey}`);
    const pong = await receiver.next((delivery) => delivery.runId === first.runId);
    log(`   delivered in ${since(t0)} to ${pong.channel}/${pong.to}: "${pong.text}"`);

    log("── 1b. an agent with instructions: main's rule `who are you` answers with its run's system prompt");
    t0 = Date.now();
    const asked = await inbound(base, {
      chatType: "direct",
      chatId: "alice",
      senderId: "alice",
      text: "who are you?",
      messageId: `m-${Date.now()}`,
    });
    const prompt = await receiver.next((delivery) => delivery.runId === asked.runId);
    log(`   delivered in ${since(t0)}:`);
    for (const line of prompt.text.split("\n")) log(`   | ${line}`);

    log("── 2. a run that calls a tool (sessions_list) as its own session");
    t0 = Date.now();
    const second = await inbound(base, {
      chatType: "direct",
      chatId: "alice",
      senderId: "alice",
      text: "list sessions",
      messageId: `m-${Date.now()}`,
    });
    const listed = await receiver.next((delivery) => delivery.runId === second.runId);
    log(`   delivered in ${since(t0)}: "${listed.text.slice(0, 140)}…"`);

    log("── 3. sessions_send main → research, reply-back turns, announce");
    await api(base, "POST", "/v1/sessions", TOKENS.main, { key: "main", displayName: "Main" });
    await api(base, "POST", "/v1/sessions", TOKENS.research, {
      key: "webchat:group:lab",
      displayName: "Research lab",
    });
    t0 = Date.now();
    const sent = await api(base, "POST", "/tools/invoke", TOKENS.main, {
      tool: "sessions_send",
      args: {
        sessionKey: "agent:research:webchat:group:lab",
        message: "Summarize the Q3 incident reports",
        timeoutSeconds: 15,
      },
    });
    const details = sent.json?.result?.details ?? sent.json;
    log(`   ${details.status} in ${since(t0)}: reply "${details.reply}"`);
    const announce = await receiver.next(
      (delivery) => delivery.sessionKey === "agent:research:webchat:group:lab",
    );
    log(`   announce delivered in ${since(t0)} to ${announce.channel}/${announce.to}: "${announce.text}"`);
    for (const [token, key] of [
      [TOKENS.main, "main"],
      [TOKENS.research, "agent:research:webchat:group:lab"],
    ]) {
      const history = await api(base, "POST", "/v1/tools/sessions_history", token, { sessionKey: key });
      log(`   ${key} transcript:`);
      for (const message of history.json.messages ?? []) {
        const text = typeof message.content === "string" ? message.content : JSON.stringify(message.content);
        log(`     ${message.role.padEnd(9)} ${text.replace(/\s+/g, " ").slice(0, 110)}`);
      }
    }
    await streamedReply(base);
    await watchNotice(base);
    await telegramChat(base, telegram, SIGNING_KEY, log);
    await cronJob(base, receiver);
    log(`done in ${since(started)}`);
  } finally {
    stop();
  }
}

main().catch((error) => {
  console.error(`demo failed: ${error.message}`);
  process.exit(1);
});
