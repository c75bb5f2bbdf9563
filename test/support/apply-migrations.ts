import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { indexShards } from "../../src/index-db/shards";

if (!env.TEST_MIGRATIONS) throw new Error("vitest.config.ts must bind TEST_MIGRATIONS");
// Setup files run before each test file; applied migrations are tracked, so this is idempotent. Every
// index shard (vitest.config.ts binds three) gets the same migrations.
const migrations = env.TEST_MIGRATIONS;
await Promise.all(indexShards(env).map((shard) => applyD1Migrations(shard, migrations)));
