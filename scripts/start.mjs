#!/usr/bin/env node
// `npm start`: applies the local D1 migrations, then serves the Worker on http://127.0.0.1:8787 with the
// demo configuration (scripts/demo-config.json) and local-only credentials. Nothing to create by hand.
// The lean local server (local-server.mjs); `npm run dev` is wrangler dev, which reloads on edits.
// Quiet: one line per migrated database; `npm start -- --verbose` shows wrangler's own output.
import { existsSync, readFileSync } from "node:fs";
import { parseEnv } from "node:util";
import { d1Bindings } from "./d1-bindings.mjs";
import { readDemoConfig } from "./demo-config.mjs";
import { runWrangler, serveLocally } from "./local-server.mjs";
import { credentialLines, startVars } from "./start-credentials.mjs";
import { failureLines, migrationLine } from "./start-output.mjs";

const HOST = "127.0.0.1";
const PORT = process.env.PORT ?? "8787";
const VERBOSE = process.argv.includes("--verbose");

async function step(description, work, { announce = true } = {}) {
  if (announce) console.log(`→ ${description}`);
  try {
    return await work();
  } catch (error) {
    for (const line of failureLines(description, error, { host: HOST, port: PORT })) console.error(line);
    process.exit(1);
  }
}

/** Applies migrations/ to one local database: one line for it, or wrangler's own output with --verbose. */
function migrate(binding) {
  const output = runWrangler(["d1", "migrations", "apply", binding, "--local"], { quiet: !VERBOSE });
  if (!VERBOSE) console.log(migrationLine(binding, output));
}

// Every D1 binding: the index's shards (README "Scaling"), one by default.
for (const binding of d1Bindings())
  await step(`applying local D1 migrations (${binding})`, () => migrate(binding), { announce: VERBOSE });

// .dev.vars as wrangler dev reads it, over the demo agents (scripts/demo-config.json); each credential it
// leaves out keeps its local default (scripts/start-credentials.mjs).
const hasDevVars = existsSync(".dev.vars");
const start = startVars(
  hasDevVars ? parseEnv(readFileSync(".dev.vars", "utf8")) : undefined,
  readDemoConfig(),
);

const server = await step("bundling the Worker and starting workerd", () =>
  serveLocally({ configPath: "wrangler.toml", host: HOST, port: PORT, vars: start.vars }),
);
console.log(`
Switchboard is serving on http://${HOST}:${PORT}
Configuration: ${start.configFromDevVars ? "SWITCHBOARD_CONFIG from your .dev.vars" : "the demo agents of scripts/demo-config.json"}
${credentialLines(start, hasDevVars).join("\n")}
Try:  curl -s http://${HOST}:${PORT}/healthz
`);

for (const signal of ["SIGINT", "SIGTERM"])
  process.on(signal, () => server.dispose().then(() => process.exit(0)));
