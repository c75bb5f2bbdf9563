// What the console check looks at, made through the real API as an operator and a channel bridge would:
// the configuration (the demo agents plus a streaming model agent, a slow webhook sub-agent and a
// channel whose webhook refuses at first) and the sessions, runs and delivery the console shows.
import { readDemoConfig } from "../demo-config.mjs";
import { DEMO_TELEGRAM_TOKEN } from "../demo-telegram.mjs";
import { sleep } from "./harness.mjs";
import { sign, WORLD_SECRETS } from "./outside-world.mjs";

export const OPERATOR_TOKEN = "local-admin-token";
/** The word the check searches for; only the writer's session says it. */
export const SEARCH_WORD = "pelican";
/** A transcript line that would run script if the console put it in the page as HTML. */
export const SCRIPT_PROBE = "<script>window.__pwned = 1</script>";
const SEED_MS = 20_000;
/** The delivery statuses that wait for an operator's retry or dismissal. */
const STUCK = ["failed", "suspended"];

/** The demo configuration plus the agents and the channel the check needs, pointed at the world. */
export function checkConfig(worldUrl) {
  const config = readDemoConfig();
  config.agents.list.push(
    {
      id: "writer",
      name: "Streaming writer",
      model: "mock/writer",
      runtime: {
        type: "openai",
        baseUrl: `${worldUrl}/model/v1`,
        model: "mock-writer",
        apiKeyEnv: "BROWSER_CHECK_MODEL_KEY",
      },
      subagents: { allowAgents: ["slowpoke"] },
    },
    {
      id: "slowpoke",
      name: "Slow worker",
      model: "webhook/slowpoke",
      runtime: { type: "webhook", url: `${worldUrl}/agent`, secretEnv: "BROWSER_CHECK_AGENT_SECRET" },
    },
  );
  // The demo's Telegram channel, its API the world's (the console's channel page asks getWebhookInfo).
  Object.assign(config.channels.telegram, { apiBaseUrl: `${worldUrl}/telegram`, busy: "collect" });
  config.channels.bridge = {
    webhookUrl: `${worldUrl}/channel`,
    secretEnv: "BROWSER_CHECK_CHANNEL_SECRET",
    agentId: "main",
  };
  return config;
}

/** The `--var`s the configuration's secrets need. */
export const checkVars = { ...WORLD_SECRETS, DEMO_TELEGRAM_TOKEN };

/** One API call as the operator; answers the JSON body, or throws naming the call and its answer. */
export async function api(base, method, path, body, headers = {}) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { Authorization: `Bearer ${OPERATOR_TOKEN}`, "Content-Type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

/** Polls `probe` until it answers something; the error says what never happened. */
async function until(what, probe) {
  const deadline = Date.now() + SEED_MS;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await sleep(200);
  }
  throw new Error(`seeding: ${what} did not happen within ${SEED_MS / 1000} s`);
}

/** Sends `text` into a session (chat.send) and waits for its run to end. */
async function say(base, key, text) {
  const { runId } = await api(base, "POST", `/v1/sessions/${encodeURIComponent(key)}/messages`, { text });
  const run = await api(base, "POST", `/v1/runs/${runId}/wait`, { timeoutMs: SEED_MS });
  if (run.status !== "ok")
    throw new Error(`seeding: the run answering "${text}" in ${key} ended ${JSON.stringify(run)}`);
}

async function createSession(base, key, label) {
  await api(base, "POST", "/v1/sessions", { key, label });
  return key;
}

/** Waits until sessions_search finds `word` in `key` (the index is written after the append). */
async function searchable(base, key, word) {
  await until(`sessions_search finding "${word}"`, async () => {
    const found = await api(
      base,
      "POST",
      "/v1/tools/sessions_search",
      { query: word },
      { "X-Switchboard-Session": key },
    );
    return found.results?.some((hit) => hit.sessionKey === key) ? true : undefined;
  });
}

/** A sub-agent of `parentKey` on the slow webhook agent, once its run is running. */
async function spawnSlowChild(base, parentKey, world) {
  const spawned = await api(
    base,
    "POST",
    "/v1/tools/sessions_spawn",
    { task: "Survey the whole archive, slowly", agentId: "slowpoke", label: "slow survey" },
    { "X-Switchboard-Session": parentKey },
  );
  if (spawned.status !== "accepted")
    throw new Error(`seeding: sessions_spawn answered ${JSON.stringify(spawned)}`);
  await until("the slow sub-agent's run reaching its webhook", () =>
    world.seen.agentRuns.some((run) => run.runId === spawned.runId) ? true : undefined,
  );
  return { childKey: spawned.childSessionKey, childRunId: spawned.runId };
}

/**
 * A direct message from the bridge; main's reply to it goes to the refusing webhook. The 400 can never
 * work, so the ledger gives up at once: `failed` (README "Deliveries"; `suspended` is only reached after
 * 30 minutes of retries, too long to wait for here). Both wait for an operator in the console.
 */
async function stuckReply(base) {
  const body = JSON.stringify({
    chatType: "direct",
    chatId: "alice",
    senderId: "alice",
    text: "Hello from the bridge, is anyone there?",
    messageId: "bridge-message-1",
  });
  const response = await fetch(`${base}/v1/channels/bridge/messages`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      "X-Switchboard-Signature": sign(WORLD_SECRETS.BROWSER_CHECK_CHANNEL_SECRET, body),
    },
    body,
  });
  const accepted = await response.json();
  if (!response.ok || accepted.status !== "accepted")
    throw new Error(
      `seeding: the inbound channel message answered ${response.status} ${JSON.stringify(accepted)}`,
    );
  const delivery = await until("the reply delivery giving up (failed or suspended)", async () => {
    const page = await api(
      base,
      "GET",
      `/v1/deliveries?kind=reply&sessionKey=${encodeURIComponent(accepted.sessionKey)}`,
    );
    return page.deliveries.find((record) => STUCK.includes(record.status));
  });
  return {
    channelKey: accepted.sessionKey,
    deliveryId: delivery.deliveryId,
    deliveryStatus: delivery.status,
  };
}

/** How many messages the busy session is sent: more runs and events than its page shows at once. */
export const BUSY_MESSAGES = 60;

/**
 * A session with a long history, as a busy operator's would have: BUSY_MESSAGES messages, each answered
 * by its own run (sent one after another, then waited for once: the session runs them in order).
 */
async function busySession(base) {
  const key = await createSession(base, "agent:research:busy-desk", "Busy desk");
  let runId;
  for (let index = 1; index <= BUSY_MESSAGES; index++)
    ({ runId } = await api(base, "POST", `/v1/sessions/${encodeURIComponent(key)}/messages`, {
      text: `Status update ${index}: anything new on the tide tables?`,
    }));
  const run = await api(base, "POST", `/v1/runs/${runId}/wait`, { timeoutMs: SEED_MS });
  if (run.status !== "ok")
    throw new Error(`seeding: the busy session's last run ended ${JSON.stringify(run)}`);
  return key;
}

/**
 * Seeds the console's data: the writer's session (a transcript with the search word and the script
 * probe, a running sub-agent), two more sessions, a channel reply that gave up, and a busy session.
 */
export async function seed(base, world) {
  const writerKey = await createSession(base, "agent:writer:browser-check", "Browser check");
  await say(base, writerKey, `Remember the ${SEARCH_WORD} and ignore ${SCRIPT_PROBE} please`);
  await searchable(base, writerKey, SEARCH_WORD);
  const notesKey = await createSession(base, "agent:main:notes", "Release notes");
  await say(base, notesKey, "ping");
  const tidesKey = await createSession(base, "agent:research:tides", "Tide tables");
  await say(base, tidesKey, "low tide times for next week");
  const child = await spawnSlowChild(base, writerKey, world);
  const channel = await stuckReply(base);
  const busyKey = await busySession(base);
  // What the export must contain: the ids of the writer's messages, as its history names them.
  const history = await api(base, "GET", `/v1/sessions/${encodeURIComponent(writerKey)}/history`);
  const writerMessageIds = history.messages.map((message) => message.id).filter(Boolean);
  if (writerMessageIds.length === 0) throw new Error("seeding: the writer's history has no message ids");
  return { writerKey, notesKey, tidesKey, busyKey, writerMessageIds, ...child, ...channel };
}
