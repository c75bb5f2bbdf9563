// Starts and stops the bench's server: the bench's own Worker (worker.ts, with the baseline routes,
// configured by wrangler.toml next to this file) on the local server of `npm start`
// (scripts/local-server.mjs, in a process of its own: serve.mjs), loopback, error-level logs, its own
// fresh state dir, offline (no Request.cf download, no telemetry).
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { d1Bindings } from "../d1-bindings.mjs";
import { readDemoConfig } from "../demo-config.mjs";
import { OFFLINE_ENV, runWrangler } from "../local-server.mjs";

export const HOST = "127.0.0.1";
export const ADMIN = "bench-admin-token";
/**
 * Sub-agents the bench's `swarm` requester keeps live at once (its maxChildrenPerAgent, benchConfig): the
 * service's default, below `instant`'s default maxConcurrent (8), so no child waits for a run slot.
 */
export const SWARM_CHILDREN = 5;
export const TOKENS = { main: "bench-main-token", research: "bench-research-token", ops: "bench-ops-token" };
/** Every wrangler command of the bench (dev, D1 migrations, d1 execute) runs against this config. */
const CONFIG = path.relative(process.cwd(), path.join(import.meta.dirname, "wrangler.toml"));
const ENV = { ...OFFLINE_ENV, CI: "true" };
const SERVE = path.join(import.meta.dirname, "serve.mjs");

export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer().once("error", reject);
    probe.listen(0, HOST, () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** Runs wrangler on the bench config to completion (migrations, d1 execute); throws with its output. */
export const wrangler = (args) => runWrangler([...args, "-c", CONFIG], { quiet: true });

/** Applies the D1 migrations to each D1 binding of the bench config (every index shard) in `stateDir`. */
export function migrate(stateDir) {
  for (const binding of d1Bindings(CONFIG))
    wrangler(["d1", "migrations", "apply", binding, "--local", "--persist-to", stateDir]);
}

/**
 * The demo configuration (config/demo.json: scripted agents main/research/ops, visibility
 * "all"), plus the `instant` agent of the send-and-wait round trip: it answers at once, and the exchange
 * ends there — main answers its reply with REPLY_SKIP and it skips the announce — so the round trip is
 * measured without a ping-pong running alongside it (the full loop is measured separately, against
 * research). With `modelUrl`, also `streamer`, an openai agent on the stand-in model of model-server.mjs.
 * With `swarm`, also `swarm`, the requester of the delivery bench (ledger.mjs): it spawns `instant`
 * sub-agents, SWARM_CHILDREN live at a time, and answers each completion with ANNOUNCE_SKIP, so its own
 * turns stay short.
 */
export function benchConfig(modelUrl, { swarm = false, soak } = {}) {
  const config = readDemoConfig();
  const main = config.agents.list.find((agent) => agent.id === "main");
  main.runtime.rules.unshift({ match: "instant-ack", reply: "REPLY_SKIP" });
  config.agents.list.push({
    id: "instant",
    name: "Instant (bench)",
    model: "scripted/instant",
    runtime: {
      type: "scripted",
      rules: [
        { match: "announce step", reply: "ANNOUNCE_SKIP" },
        { match: "reply step", reply: "REPLY_SKIP" },
        { match: "*", reply: "instant-ack" },
      ],
    },
  });
  if (swarm) {
    config.agents.list.push({
      id: "swarm",
      name: "Swarm (bench)",
      model: "scripted/swarm",
      runtime: {
        type: "scripted",
        rules: [
          { match: "[Sub-agent completion]", reply: "ANNOUNCE_SKIP" },
          { match: "*", reply: "swarm-ack" },
        ],
      },
      subagents: { maxChildrenPerAgent: SWARM_CHILDREN, allowAgents: ["instant"] },
    });
  }
  if (soak) config.agents.list.push(soakAgent(soak.maintenance));
  if (modelUrl)
    config.agents.list.push({
      id: "streamer",
      name: "Streamer (bench)",
      model: "bench-model",
      runtime: { type: "openai", baseUrl: modelUrl, model: "bench-model" },
    });
  return config;
}

/**
 * The soak's chat agent (soak.mjs): a scripted answer of a few hundred characters, a window small enough
 * that its sessions compact every few turns (the scripted runtime's output allowance is the default 4096
 * tokens), and `maintenance` as the soak run sets it (its own, so no other agent's sessions are touched).
 */
function soakAgent(maintenance) {
  const answer = `Noted: {{message}}. ${"Here is a longer answer, as a chat's assistant writes one. ".repeat(6)}`;
  return {
    id: "soak",
    name: "Soak (bench)",
    model: "scripted/soak",
    contextWindow: 6_000,
    tools: { profile: "minimal" },
    ...(maintenance ? { maintenance } : {}),
    runtime: { type: "scripted", rules: [{ match: "*", reply: answer }] },
  };
}

/**
 * Resolves once `url` answers 2xx, polled every 250 ms; after `tries` polls, or once `child` (the process
 * that should serve it) has exited, kills `child` and throws `failure()`.
 */
export async function answering(url, child, tries, failure) {
  for (let tried = 0; ; tried++) {
    if (tried > tries || child.exitCode !== null) {
      child.kill("SIGKILL");
      throw new Error(failure());
    }
    const up = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Spawns serve.mjs with `options` on a free port; resolves `{ base, pid, stop }` once it answers. */
async function serve(options) {
  const port = await freePort();
  const child = spawn(process.execPath, [SERVE, JSON.stringify({ ...options, port })], {
    env: ENV,
    stdio: ["ignore", "ignore", "inherit"],
  });
  const base = `http://${HOST}:${port}`;
  await answering(`${base}/healthz`, child, 240, () => "the bench's server did not start");
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", resolve);
      child.kill("SIGINT");
    });
  return { base, pid: child.pid, stop };
}

/**
 * Starts the Worker on a free loopback port over `stateDir`; resolves once /healthz answers.
 * `inspectorPort` opens workerd's inspector there (scripts/bench/profile.mjs); `count` counts the
 * platform calls (costs.mjs); `latency` ({ d1, do, queue } ms) lets the latency phase switch that model on
 * (latency.mjs); `modelUrl` adds the
 * `streamer` agent, `swarm` the `swarm` agent (benchConfig).
 */
export async function startWorker(
  stateDir,
  { inspectorPort, count, latency } = {},
  { modelUrl, swarm, soak } = {},
) {
  const vars = {
    // The costs phase counts the platform calls (counting.ts); the timed phases run without it.
    ...(count ? { BENCH_COUNT: "1" } : {}),
    ...(latency ? { BENCH_LATENCY: JSON.stringify(latency) } : {}),
    SWITCHBOARD_CONFIG: JSON.stringify(benchConfig(modelUrl, { swarm, soak })),
    SWITCHBOARD_ADMIN_TOKEN: ADMIN,
    SWITCHBOARD_AGENT_TOKENS: JSON.stringify(TOKENS),
    SWITCHBOARD_SIGNING_KEY: "bench-signing-key",
  };
  return serve({ configPath: CONFIG, persistTo: stateDir, vars, inspectorPort });
}

/** A bare Miniflare Worker answering "ok" (serve.mjs): the floor `npm start`'s /healthz is held to. */
export function startBareWorker() {
  return serve({ bare: true });
}

/** Every process below `pid`, through /proc's child lists. */
export function descendants(pid) {
  const children = readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
    readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").split(" ").filter(Boolean).map(Number),
  );
  return children.flatMap((child) => [child, ...descendants(child)]);
}

/** The workerd under a server pid (serve.mjs), which runs the Worker and its objects, D1 and queues. */
export function workerdPid(serverPid) {
  return descendants(serverPid).find((pid) => readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "workerd");
}

/** VmRSS and VmHWM (peak) of a process, in MiB. */
export function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (name) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rssMiB: kib("VmRSS") / 1024, peakMiB: kib("VmHWM") / 1024 };
}

/** CPU time (user + system) a process has used so far, in ms (/proc/<pid>/stat, 100 ticks a second). */
export function cpuMsOf(pid) {
  // The command name (field 2) may hold spaces; the fields after its closing parenthesis are fixed.
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Bytes the local D1 databases of a state dir take on disk (each database file with its WAL). */
export function d1BytesOf(stateDir) {
  const dir = path.join(stateDir, "v3/d1/miniflare-D1DatabaseObject");
  return readdirSync(dir)
    .filter((file) => !file.startsWith("metadata.") && /\.sqlite(-wal)?$/.test(file))
    .reduce((sum, file) => sum + statSync(path.join(dir, file)).size, 0);
}
