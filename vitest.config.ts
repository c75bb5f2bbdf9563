import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

export default defineConfig(async () => {
  const migrations = await readD1Migrations(path.join(import.meta.dirname, "migrations"));
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          // Test-only credentials; production ones are Worker secrets (README "Deploy").
          bindings: {
            TEST_MIGRATIONS: migrations,
            SWITCHBOARD_ADMIN_TOKEN: "test-admin-token",
            SWITCHBOARD_AGENT_TOKENS: JSON.stringify({
              main: "test-main-token",
              research: "test-research-token",
              ops: "test-ops-token",
            }),
            SWITCHBOARD_SIGNING_KEY: "test-signing-key-0123456789abcdef",
          },
        },
      }),
    ],
    test: {
      setupFiles: ["./test/setup/apply-migrations.ts"],
      include: ["test/**/*.test.ts"],
    },
  };
});
