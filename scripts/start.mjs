#!/usr/bin/env node
// `npm start`: applies the local D1 migrations, then serves the Worker on http://127.0.0.1:8787 with the
// demo configuration (scripts/demo-config.json) and local-only credentials. Nothing to create by hand.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { d1Bindings } from "./d1-bindings.mjs";
import { readDemoConfig } from "./demo-config.mjs";

const HOST = "127.0.0.1";
// Offline by design: no Request.cf download, no telemetry.
const OFFLINE_ENV = { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" };
const PORT = process.env.PORT ?? "8787";

// Local-only credentials, used when there is no .dev.vars. Never deploy these (README "Deploy").
const LOCAL_SECRETS = {
  SWITCHBOARD_ADMIN_TOKEN: "local-admin-token",
  SWITCHBOARD_AGENT_TOKENS: JSON.stringify({
    main: "local-main-token",
    research: "local-research-token",
    ops: "local-ops-token",
  }),
  SWITCHBOARD_SIGNING_KEY: "local-signing-key-not-for-production",
};

function run(args, description) {
  console.log(`→ ${description}`);
  // CI=true answers wrangler's confirmation prompts, so this never waits on stdin.
  const result = spawnSync("wrangler", args, { stdio: "inherit", env: { ...OFFLINE_ENV, CI: "true" } });
  if (result.status !== 0) {
    console.error(
      `✗ ${description} failed (exit ${result.status}). Run \`npm ci\` and try again; wrangler's output is above.`,
    );
    process.exit(result.status ?? 1);
  }
}

// Every D1 binding: the index's shards (README "Scaling"), one by default.
for (const binding of d1Bindings())
  run(["d1", "migrations", "apply", binding, "--local"], `applying local D1 migrations (${binding})`);

// The demo agents (scripts/demo-config.json), unless .dev.vars has a SWITCHBOARD_CONFIG of its own: a
// --var would win over .dev.vars, so it is passed only without one.

const hasDevVars = existsSync(".dev.vars");
const devVarsConfig =
  hasDevVars && /^\s*(export\s+)?SWITCHBOARD_CONFIG\s*=/m.test(readFileSync(".dev.vars", "utf8"));
const vars = Object.entries({
  ...(hasDevVars ? {} : LOCAL_SECRETS),
  ...(devVarsConfig ? {} : { SWITCHBOARD_CONFIG: JSON.stringify(readDemoConfig()) }),
}).flatMap(([name, value]) => ["--var", `${name}:${value}`]);

console.log(`
Switchboard is starting on http://${HOST}:${PORT}
Configuration: ${devVarsConfig ? "SWITCHBOARD_CONFIG from your .dev.vars" : "the demo agents of scripts/demo-config.json"}
${
  hasDevVars
    ? "Credentials: from your .dev.vars"
    : `Local credentials (for this machine only):
  operator token   ${LOCAL_SECRETS.SWITCHBOARD_ADMIN_TOKEN}
  agent tokens     main=local-main-token  research=local-research-token  ops=local-ops-token`
}
Try:  curl -s http://${HOST}:${PORT}/healthz
`);

const child = spawn(
  "wrangler",
  ["dev", "--ip", HOST, "--port", PORT, "--show-interactive-dev-session=false", ...vars],
  {
    stdio: "inherit",
    env: OFFLINE_ENV,
  },
);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code) => process.exit(code ?? 0));
