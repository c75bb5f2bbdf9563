import { applyD1Migrations, reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { indexShards } from "../../src/index-db/shards";

/*
 * The setup of the `fresh` project (vitest.config.ts): its files share a runtime per worker, as the
 * others do, but each starts on empty storage, as if the runtime were new: every Durable Object and its
 * alarm deleted (`reset`), every index table dropped and the migrations applied again.
 */
if (!env.TEST_MIGRATIONS) throw new Error("vitest.config.ts must bind TEST_MIGRATIONS");
const migrations = env.TEST_MIGRATIONS;

await reset();
await Promise.all(
  indexShards(env).map(async (shard) => {
    const objects = await shard
      .prepare(
        `SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
         AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\' ORDER BY type = 'table', sql LIKE 'CREATE VIRTUAL%' DESC`,
      )
      .all<{ type: string; name: string }>();
    const drops = objects.results.map(({ type, name }) =>
      shard.prepare(`DROP ${type === "view" ? "VIEW" : "TABLE"} IF EXISTS "${name}"`),
    );
    if (drops.length > 0) await shard.batch(drops);
    await applyD1Migrations(shard, migrations);
  }),
);
