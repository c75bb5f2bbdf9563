// The D1 bindings of a wrangler config (`DB`, and `DB_1`, `DB_2`, … when the session index is sharded,
// README "Scaling"), so every script that migrates D1 migrates each one: `npm start`, the bench,
// `npm run deploy` (scripts/migrate-d1.mjs). All share the migrations/ folder.
import { readFileSync } from "node:fs";

/** The `binding` of each `[[d1_databases]]` table (of `[env.<env>]` when `env` is given), in order. */
export function d1Bindings(configPath = "wrangler.toml", env = undefined) {
  const table = env ? `[[env.${env}.d1_databases]]` : "[[d1_databases]]";
  const bindings = [];
  let inTable = false;
  for (const line of readFileSync(configPath, "utf8").split("\n")) {
    const trimmed = line.trim();
    if (trimmed.startsWith("[")) inTable = trimmed === table;
    const binding = inTable && /^binding\s*=\s*"([^"]+)"/.exec(trimmed);
    if (binding) bindings.push(binding[1]);
  }
  if (bindings.length === 0) throw new Error(`${configPath} declares no ${table}`);
  return bindings;
}
