#!/usr/bin/env node
// `npm start`: applies the local D1 migrations, then serves the Worker on http://127.0.0.1:8787 with the
// demo configuration (scripts/demo-config.json) and local-only credentials. Nothing to create by hand.
// The lean local server (local-server.mjs); `npm run dev` is wrangler dev, which reloads on edits.
import { existsSync, readFileSync } from "node:fs";
import { parseEnv } from "node:util";
import { d1Bindings } from "./d1-bindings.mjs";
import { readDemoConfig } from "./demo-config.mjs";
import { runWrangler, serveLocally } from "./local-server.mjs";

const HOST = "127.0.0.1";
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

async function step(description, work) {
  console.log(`→ ${description}`);
  try {
    return await work();
  } catch (error) {
    const next = /address already in use/i.test(error.message)
      ? `Another server has port ${PORT}: stop it, or serve another port (PORT=8799 npm start).`
      : "Run `npm ci` (it installs wrangler, workerd and Node 22), then `npm start` again.";
    console.error(`✗ ${description} failed: ${error.message}\n${next}`);
    process.exit(1);
  }
}

// Every D1 binding: the index's shards (README "Scaling"), one by default.
for (const binding of d1Bindings())
  await step(`applying local D1 migrations (${binding})`, () =>
    runWrangler(["d1", "migrations", "apply", binding, "--local"]),
  );

// .dev.vars as wrangler dev reads it; without one, the local credentials. The demo agents
// (scripts/demo-config.json), unless .dev.vars has a SWITCHBOARD_CONFIG of its own.
const hasDevVars = existsSync(".dev.vars");
const devVars = hasDevVars ? parseEnv(readFileSync(".dev.vars", "utf8")) : LOCAL_SECRETS;
const devVarsConfig = devVars.SWITCHBOARD_CONFIG !== undefined;
const vars = { SWITCHBOARD_CONFIG: JSON.stringify(readDemoConfig()), ...devVars };

const server = await step("bundling the Worker and starting workerd", () =>
  serveLocally({ configPath: "wrangler.toml", host: HOST, port: PORT, vars }),
);
console.log(`
Switchboard is serving on http://${HOST}:${PORT}
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

for (const signal of ["SIGINT", "SIGTERM"])
  process.on(signal, () => server.dispose().then(() => process.exit(0)));
