import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";

if (!env.TEST_MIGRATIONS) throw new Error("vitest.config.ts must bind TEST_MIGRATIONS");
// Setup files run before each test file; applied migrations are tracked, so this is idempotent.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
