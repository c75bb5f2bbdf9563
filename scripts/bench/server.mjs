// Starts and stops `wrangler dev` for the bench: the bench's own Worker (worker.ts, with the baseline
// routes, configured by wrangler.toml next to this file), loopback, error-level logs, its own fresh state
// dir, offline (no Request.cf download, no telemetry).
import { spawn, spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { d1Bindings } from "../d1-bindings.mjs";
import { readDemoConfig } from "../demo-config.mjs";

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
const ENV = {
  ...process.env,
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  WRANGLER_SEND_METRICS: "false",
  CI: "true",
  // wrangler dev otherwise writes a trace of every invocation (spans, D1 and RPC calls) into a local
  // SQLite store for its Local Explorer: hundreds of MB per bench run, a dev-tool cost production has not.
  X_LOCAL_OBSERVABILITY: "false",
};

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
export function wrangler(args) {
  const result = spawnSync("wrangler", [...args, "-c", CONFIG], {
    env: ENV,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0)
    throw new Error(`wrangler ${args.slice(0, 3).join(" ")} failed:\n${result.stderr}`);
  return result.stdout;
}

/** Applies the D1 migrations to each D1 binding of the bench config (every index shard) in `stateDir`. */
export function migrate(stateDir) {
  for (const binding of d1Bindings(CONFIG))
    wrangler(["d1", "migrations", "apply", binding, "--local", "--persist-to", stateDir]);
}

/**
 * The demo configuration (scripts/demo-config.json: scripted agents main/research/ops, visibility
 * "all"), plus the `instant` agent of the send-and-wait round trip: it answers at once, and the exchange
 * ends there — main answers its reply with REPLY_SKIP and it skips the announce — so the round trip is
 * measured without a ping-pong running alongside it (the full loop is measured separately, against
 * research). With `modelUrl`, also `streamer`, an openai agent on the stand-in model of model-server.mjs.
 * With `swarm`, also `swarm`, the requester of the delivery bench (ledger.mjs): it spawns `instant`
 * sub-agents, SWARM_CHILDREN live at a time, and answers each completion with ANNOUNCE_SKIP, so its own
 * turns stay short.
 */
export function benchConfig(modelUrl, { swarm = false } = {}) {
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
 * Starts the Worker on a free loopback port over `stateDir`; resolves once /healthz answers.
 * `extraArgs` go to `wrangler dev` as they are (e.g. `--inspector-port` for scripts/bench/profile.mjs);
 * `modelUrl` adds the `streamer` agent, `swarm` the `swarm` agent (benchConfig).
 */
export async function startWorker(stateDir, extraArgs = [], { modelUrl, swarm } = {}) {
  const port = await freePort();
  const vars = {
    SWITCHBOARD_CONFIG: JSON.stringify(benchConfig(modelUrl, { swarm })),
    SWITCHBOARD_ADMIN_TOKEN: ADMIN,
    SWITCHBOARD_AGENT_TOKENS: JSON.stringify(TOKENS),
    SWITCHBOARD_SIGNING_KEY: "bench-signing-key",
  };
  const args = [
    "dev",
    "-c",
    CONFIG,
    "--ip",
    HOST,
    "--port",
    String(port),
    "--persist-to",
    stateDir,
    "--log-level",
    "error",
  ];
  args.push("--show-interactive-dev-session=false", ...extraArgs);
  for (const [name, value] of Object.entries(vars)) args.push("--var", `${name}:${value}`);
  const child = spawn("wrangler", args, { env: ENV, stdio: ["ignore", "ignore", "inherit"] });
  const base = `http://${HOST}:${port}`;
  for (let tries = 0; ; tries++) {
    if (tries > 240 || child.exitCode !== null) throw new Error("wrangler dev did not start");
    if (
      await fetch(`${base}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", resolve);
      child.kill("SIGINT");
    });
  return { base, pid: child.pid, stop };
}

/** Every process below `pid`, through /proc's child lists. */
export function descendants(pid) {
  const children = readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
    readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").split(" ").filter(Boolean).map(Number),
  );
  return children.flatMap((child) => [child, ...descendants(child)]);
}

/**
 * The workerd under a wrangler pid that runs the Worker (and its objects, D1, queues). wrangler starts a
 * second workerd for its own proxy; the runtime's is the one Miniflare gives an inspector address.
 */
export function workerdPid(wranglerPid) {
  return descendants(wranglerPid).find((pid) =>
    readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("--inspector-addr"),
  );
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
