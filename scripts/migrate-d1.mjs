#!/usr/bin/env node
// Applies migrations/ to every D1 binding of the config (scripts/d1-bindings.mjs): each index shard.
// Usage: node scripts/migrate-d1.mjs [--env <name>] [-c <config>] <wrangler options: --local | --remote, --persist-to …>
import { d1Bindings } from "./d1-bindings.mjs";
import { runWrangler } from "./local-server.mjs";

const args = process.argv.slice(2);
const optionValue = (flags) => {
  const at = args.findIndex((arg) => flags.includes(arg));
  return at >= 0 ? args[at + 1] : undefined;
};
const env = optionValue(["--env", "-e"]);
const config = optionValue(["-c", "--config"]) ?? "wrangler.toml";
for (const binding of d1Bindings(config, env)) {
  console.log(`→ D1 migrations: ${binding}`);
  try {
    runWrangler(["d1", "migrations", "apply", binding, ...args]);
  } catch (error) {
    console.error(`✗ ${error.message}`);
    process.exit(1);
  }
}
