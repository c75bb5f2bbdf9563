// The D1 bindings of a wrangler config (`DB`, and `DB_1`, `DB_2`, … when the session index is sharded,
// README "Scaling"), so every script that migrates D1 migrates each one: `npm start`, the bench,
// `npm run deploy` (scripts/migrate-d1.mjs). All share the migrations/ folder. Read by wrangler's own
// config reader, so the file means here what it means to wrangler.
import { unstable_readConfig } from "wrangler";

/** The `binding` of each D1 database of the config (of `[env.<env>]` when `env` is given), in order. */
export function d1Bindings(configPath = "wrangler.toml", env = undefined) {
  const bindings = unstable_readConfig({ config: configPath, env }).d1_databases.map((db) => db.binding);
  if (bindings.length === 0) throw new Error(`${configPath} declares no D1 database`);
  return bindings;
}
