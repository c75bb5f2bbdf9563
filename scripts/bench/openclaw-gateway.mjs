// Starts and stops the real OpenClaw gateway for the comparison (BENCH_OPENCLAW=1): loopback, a free
// port, a token of its own, its config and state in a fresh folder (OPENCLAW_CONFIG_PATH,
// OPENCLAW_STATE_DIR, HOME), every agent on the bench's stand-in model, and nothing that reaches out:
// no channels, no mDNS, no update check (which is also its telemetry), no cron.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, openSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { answering, freePort, HOST } from "./server.mjs";

export const OPENCLAW_TOKEN = "bench-openclaw-token";
/** Agents of the OpenClaw side: the bench's own (main, research, ops) and the send target's. */
export const OPENCLAW_AGENTS = ["main", "research", "ops", "streamer"];
export const MODEL_ID = "bench-model";

/** OpenClaw's config (its JSON5 file, written as JSON): only what the comparison needs. */
function gatewayConfig({ port, modelUrl, dir }) {
  const model = {
    id: MODEL_ID,
    name: "Bench model",
    reasoning: false,
    input: ["text"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 128_000,
    maxTokens: 4096,
  };
  return {
    gateway: {
      mode: "local",
      bind: "loopback",
      port,
      auth: { mode: "token", token: OPENCLAW_TOKEN },
      // sessions_send is on /tools/invoke's default deny list; the comparison calls it there, as ours does.
      tools: { allow: ["sessions_send"] },
    },
    update: { checkOnStart: false },
    discovery: { mdns: { mode: "off" } },
    logging: { file: path.join(dir, "logs", "openclaw.log") },
    models: {
      mode: "replace",
      providers: {
        bench: { baseUrl: modelUrl, apiKey: "bench", api: "openai-completions", models: [model] },
      },
    },
    agents: {
      // A fleet of several agents names its default owner (main, the requester of every call) itself.
      ownership: "explicit",
      defaults: {
        workspace: path.join(dir, "workspace"),
        model: { primary: `bench/${MODEL_ID}` },
        systemAgent: { agentId: "main" },
      },
      entries: Object.fromEntries(OPENCLAW_AGENTS.map((id) => [id, { name: `Bench ${id}` }])),
    },
  };
}

/** The gateway's and its CLI's environment: state, config and home inside `dir`; offline switches. */
function gatewayEnv(dir) {
  return {
    ...process.env,
    HOME: path.join(dir, "home"),
    OPENCLAW_STATE_DIR: path.join(dir, "state"),
    OPENCLAW_CONFIG_PATH: path.join(dir, "openclaw.json"),
    OPENCLAW_DISABLE_BONJOUR: "1",
    OPENCLAW_NO_RESPAWN: "1",
    OPENCLAW_SKIP_CHANNELS: "1",
    OPENCLAW_NO_AUTO_UPDATE: "1",
    OPENCLAW_SKIP_CRON: "1",
    OPENCLAW_EXEC_SHELL_SNAPSHOT: "0",
    NO_COLOR: "1",
  };
}

/** Writes the config into `dir` (fresh); returns the port the gateway will listen on. */
export async function prepareGateway(dir, modelUrl) {
  const port = await freePort();
  for (const sub of ["state", "home", "workspace", "logs"])
    mkdirSync(path.join(dir, sub), { recursive: true });
  writeFileSync(
    path.join(dir, "openclaw.json"),
    JSON.stringify(gatewayConfig({ port, modelUrl, dir }), null, 2),
  );
  return port;
}

/** Runs an `openclaw` CLI command against `dir`'s config and state to completion; throws with its output. */
export function openclawCli(install, dir, args) {
  const result = spawnSync(install.node, [install.entry, ...args], {
    env: gatewayEnv(dir),
    cwd: dir,
    encoding: "utf8",
    maxBuffer: 16 * 1024 * 1024,
  });
  if (result.status !== 0)
    throw new Error(
      `openclaw ${args.join(" ")} failed (${result.status}):\n${result.stdout}\n${result.stderr}`,
    );
  return result.stdout;
}

/**
 * Starts `openclaw gateway run` over `dir` (prepareGateway first) and resolves { base, pid, stop } once
 * `/readyz` answers 200 (its startup sidecars settled). Its output goes to `dir`/gateway.log.
 */
export async function startGateway(install, dir, port) {
  const logFile = path.join(dir, "gateway.log");
  const out = openSync(logFile, "a");
  const child = spawn(install.node, [install.entry, "gateway", "run", "--port", String(port)], {
    env: gatewayEnv(dir),
    cwd: dir,
    stdio: ["ignore", out, out],
  });
  const base = `http://${HOST}:${port}`;
  // Up to 6 minutes: on a loaded machine its first start (schema repair, agent databases) takes minutes.
  await answering(
    `${base}/readyz`,
    child,
    1440,
    () => `openclaw gateway did not start:\n${readFileSync(logFile, "utf8").slice(-2000)}`,
  );
  // SIGTERM drains (its budget is minutes when work is in flight); the bench waits 10 s, then kills.
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      const kill = setTimeout(() => child.kill("SIGKILL"), 10_000);
      child.once("exit", () => {
        clearTimeout(kill);
        resolve();
      });
      child.kill("SIGTERM");
    });
  return { base, pid: child.pid, stop, logFile };
}
