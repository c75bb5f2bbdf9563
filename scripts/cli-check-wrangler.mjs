// The `wrangler dev` of `npm run test:cli`: started like scripts/start.mjs (offline, local tokens, the demo
// configuration), but on a free port with its own state directory, so it never meets a running `npm start`.
// Also `runChecks`, how test:cli and test:client-package run their checks and clean up after them.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, openSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { d1Bindings } from "./d1-bindings.mjs";
import { readDemoConfig } from "./demo-config.mjs";

const ROOT = path.resolve(import.meta.dirname, "..");
const WRANGLER = path.join(ROOT, "node_modules", ".bin", "wrangler");
// Wrangler's `#!/usr/bin/env node` must find this Node (the project's, ≥ 22), even outside `npm run`.
const OFFLINE_ENV = {
  ...process.env,
  PATH: [path.dirname(process.execPath), path.join(ROOT, "node_modules", ".bin"), process.env.PATH].join(
    path.delimiter,
  ),
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  WRANGLER_SEND_METRICS: "false",
};
const START_TIMEOUT_MS = 40_000;

/** The agent tokens `npm start` uses. */
export const LOCAL_TOKENS = {
  main: "local-main-token",
  research: "local-research-token",
  ops: "local-ops-token",
};

/** A port nothing listens on right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Applies the D1 migrations to a throw-away state directory, then serves the Worker there on a free
 * loopback port with the local tokens; resolves once /healthz answers. `config` replaces the demo
 * configuration and `vars` adds bindings (the secrets that configuration names); the browser check
 * passes both. wrangler's output goes to `wrangler.log` in the state directory.
 */
export async function startWrangler(stateDir, { config = readDemoConfig(), vars: extraVars = {} } = {}) {
  mkdirSync(stateDir, { recursive: true });
  const persist = ["--persist-to", stateDir];
  // Every D1 binding: each index shard (README "Scaling").
  for (const binding of d1Bindings(path.join(ROOT, "wrangler.toml"))) {
    const migrate = spawnSync(WRANGLER, ["d1", "migrations", "apply", binding, "--local", ...persist], {
      cwd: ROOT,
      env: { ...OFFLINE_ENV, CI: "true" },
      encoding: "utf8",
    });
    if (migrate.status !== 0) throw new Error(`migrations failed:\n${migrate.stdout}${migrate.stderr}`);
  }
  const [port, inspectorPort] = [await freePort(), await freePort()];
  const vars = {
    SWITCHBOARD_ADMIN_TOKEN: "local-admin-token",
    SWITCHBOARD_AGENT_TOKENS: JSON.stringify(LOCAL_TOKENS),
    SWITCHBOARD_SIGNING_KEY: "local-signing-key-not-for-production",
    SWITCHBOARD_CONFIG: JSON.stringify(config),
    ...extraVars,
  };
  const log = openSync(path.join(stateDir, "wrangler.log"), "w");
  const wrangler = spawn(
    WRANGLER,
    [
      "dev",
      ...["--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(inspectorPort)],
      "--show-interactive-dev-session=false",
      ...persist,
      ...Object.entries(vars).flatMap(([name, value]) => ["--var", `${name}:${value}`]),
    ],
    { cwd: ROOT, env: OFFLINE_ENV, stdio: ["ignore", log, log], detached: true },
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (wrangler.exitCode !== null) break;
    try {
      if ((await fetch(`${url}/healthz`)).ok) return { url, stop: () => stop(wrangler) };
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await stop(wrangler);
  throw new Error(
    `wrangler dev did not start:\n${readFileSync(path.join(stateDir, "wrangler.log"), "utf8")}`,
  );
}

/** Signals wrangler's process group; a group already gone is fine. */
function signalGroup(wrangler, signal) {
  try {
    process.kill(-wrangler.pid, signal);
  } catch {}
}

/** Stops wrangler dev and its workerd children: their own process group, started detached above. */
async function stop(wrangler) {
  if (wrangler.exitCode === null && wrangler.signalCode === null) {
    const exited = new Promise((resolve) => wrangler.once("exit", resolve));
    signalGroup(wrangler, "SIGTERM");
    const timer = setTimeout(() => signalGroup(wrangler, "SIGKILL"), 5000);
    await exited;
    clearTimeout(timer);
  }
  // workerd may outlive wrangler for a moment; the group goes with it.
  signalGroup(wrangler, "SIGKILL");
}

/**
 * Runs a check script's `main` and exits: whatever happens (a throw, Ctrl-C) stops its `wrangler dev`
 * (`server()`, once started) and removes `scratch`; prints `<name>: N passed, M failed (T s)` of
 * `results` (`{ ok }` each) and exits non-zero on a failed check or a `main` that could not run.
 */
export async function runChecks(name, main, { results, scratch, server }) {
  const cleanUp = async () => {
    await server()?.stop();
    rmSync(scratch, { recursive: true, force: true });
  };
  for (const signal of ["SIGINT", "SIGTERM"]) {
    process.on(signal, async () => {
      await cleanUp();
      process.exit(1);
    });
  }
  const started = Date.now();
  let fatal;
  try {
    await main();
  } catch (error) {
    fatal = error;
  } finally {
    await cleanUp();
  }
  if (fatal) console.error(`${name} could not run: ${fatal instanceof Error ? fatal.message : fatal}`);
  const failed = results.filter((result) => !result.ok).length + (fatal ? 1 : 0);
  const passed = results.filter((result) => result.ok).length;
  console.log(
    `${name}: ${passed} passed, ${failed} failed (${((Date.now() - started) / 1000).toFixed(1)} s)`,
  );
  process.exit(failed > 0 ? 1 : 0);
}
