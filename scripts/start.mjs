#!/usr/bin/env node
// `npm start`: applies the local D1 migrations, then serves the Worker on http://127.0.0.1:8787 with its
// bundled configuration (config/local.json) and local-only credentials. Nothing to create by hand.
// The lean local server (local-server.mjs); `npm run dev` is wrangler dev, which reloads on edits.
// Quiet: one line per migrated database; `npm start -- --verbose` shows wrangler's own output.
import { existsSync, readFileSync } from "node:fs";
import { parseEnv } from "node:util";
import { d1Bindings } from "./d1-bindings.mjs";
import { runWrangler, serveLocally } from "./local-server.mjs";
import { configurationLines, credentialLines, startVars } from "./start-credentials.mjs";
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

// .dev.vars as wrangler dev reads it (its SWITCHBOARD_CONFIG, if any, over config/local.json); each
// credential it leaves out keeps its local default (scripts/start-credentials.mjs).
const hasDevVars = existsSync(".dev.vars");
const start = startVars(hasDevVars ? parseEnv(readFileSync(".dev.vars", "utf8")) : undefined);

const server = await step("bundling the Worker and starting workerd", () =>
  serveLocally({ configPath: "wrangler.toml", host: HOST, port: PORT, vars: start.vars }),
);
// The Worker says itself which configuration it runs and which secrets that names it lacks.
const health = await step(
  "reading /healthz",
  async () => (await fetch(`http://${HOST}:${PORT}/healthz`)).json(),
  {
    announce: false,
  },
);
console.log(`
Switchboard is serving on http://${HOST}:${PORT}
${configurationLines(health).join("\n")}
${credentialLines(start, hasDevVars).join("\n")}
Try:  curl -s http://${HOST}:${PORT}/healthz
`);

for (const signal of ["SIGINT", "SIGTERM"])
  process.on(signal, () => server.dispose().then(() => process.exit(0)));
