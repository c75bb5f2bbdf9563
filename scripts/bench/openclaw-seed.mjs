// The same data on both sides of the OpenClaw comparison: 203 sessions under the same keys — main's,
// the 200 bench sessions of seed.mjs (agents main/research/ops, 50 labels), one with a 200-message
// transcript (the history and status target) and the send target on the `streamer` agent.
// Switchboard through its API; OpenClaw as its legacy file store (sessions.json and a JSONL transcript
// per agent), imported into its SQLite session databases by `openclaw doctor --session-sqlite import`
// before the gateway starts: its gateway has no API that creates a session with a given key and history.
import { randomUUID } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { api } from "./api.mjs";
import { waitForIndex } from "./list.mjs";
import { openclawCli } from "./openclaw-gateway.mjs";
import { createSessions, importTranscript, LABEL_COUNT, transcriptMessage } from "./seed.mjs";
import { ADMIN, TOKENS } from "./server.mjs";

const BENCH_SESSIONS = 200;
export const HISTORY_SIZE = 200;
export const SESSION_COUNT = BENCH_SESSIONS + 3;
export const KEYS = {
  main: "agent:main:main",
  history: `agent:main:api:history-${HISTORY_SIZE}`,
  target: "agent:streamer:api:send-target",
};
const AGENTS = ["main", "research", "ops"];

/** Seeds Switchboard through `POST /v1/sessions` and `…/transcript`; resolves once all 203 are listed. */
export async function seedSwitchboard(base) {
  const main = await api(base, "POST", "/v1/sessions", TOKENS.main, { key: "main", displayName: "Main" });
  if (main.status !== 201) throw new Error(`create main: ${main.status}`);
  await createSessions(base, BENCH_SESSIONS);
  await importTranscript(base, KEYS.history, HISTORY_SIZE);
  const target = await api(base, "POST", "/v1/sessions", ADMIN, { key: KEYS.target });
  if (target.status !== 201) throw new Error(`create ${KEYS.target}: ${target.status}`);
  await waitForIndex(base, SESSION_COUNT);
}

/** A transcript line of OpenClaw's (pi's) session format for one of seed.mjs's messages. */
function transcriptLine(message, parentId) {
  const content = [{ type: "text", text: message.content }];
  const assistant = {
    api: "openai-completions",
    provider: "bench",
    model: "bench-model",
    stopReason: "stop",
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { total: 0 } },
  };
  return {
    type: "message",
    id: message.id,
    parentId,
    timestamp: new Date(message.timestamp).toISOString(),
    message: {
      role: message.role,
      content,
      timestamp: message.timestamp,
      ...(message.role === "assistant" ? assistant : {}),
    },
  };
}

/** Writes OpenClaw's legacy stores under `dir`/state and imports them (the gateway must not be running). */
export function seedOpenClaw(install, dir) {
  const now = Date.now();
  const stores = Object.fromEntries([...AGENTS, "streamer"].map((agent) => [agent, {}]));
  const entry = (agent, key, fields) => {
    stores[agent][key] = { sessionId: randomUUID(), updatedAt: now, ...fields };
    return stores[agent][key];
  };
  entry("main", KEYS.main, { displayName: "Main", updatedAt: now - 1000 });
  for (let i = 0; i < BENCH_SESSIONS; i++) {
    const agent = AGENTS[i % AGENTS.length];
    // createSessions' labels and names, created in order (the newest last), as on our side.
    entry(agent, `agent:${agent}:api:bench-${i}`, {
      label: `label-${i % LABEL_COUNT}`,
      displayName: `Bench session ${i}`,
      updatedAt: now - 500_000 + i * 1000,
    });
  }
  const history = entry("main", KEYS.history, {});
  entry("streamer", KEYS.target, {});
  const sessionsDir = (agent) => path.join(dir, "state", "agents", agent, "sessions");
  const header = {
    type: "session",
    version: 3,
    id: history.sessionId,
    timestamp: new Date(now).toISOString(),
  };
  const lines = [{ ...header, cwd: path.join(dir, "workspace") }];
  for (let i = 0; i < HISTORY_SIZE; i++)
    lines.push(transcriptLine(transcriptMessage(i), i === 0 ? null : transcriptMessage(i - 1).id));
  history.sessionFile = path.join(sessionsDir("main"), `${history.sessionId}.jsonl`);
  for (const [agent, store] of Object.entries(stores)) {
    mkdirSync(sessionsDir(agent), { recursive: true });
    writeFileSync(path.join(sessionsDir(agent), "sessions.json"), JSON.stringify(store, null, 2));
  }
  writeFileSync(history.sessionFile, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
  const report = openclawCli(install, dir, [
    "doctor",
    "--session-sqlite",
    "import",
    "--session-sqlite-all-agents",
  ]);
  const imported = Number(/(\d+) sqlite entries/.exec(report)?.[1] ?? 0);
  if (imported !== SESSION_COUNT) throw new Error(`openclaw imported ${imported} sessions:\n${report}`);
  return report.trim();
}
