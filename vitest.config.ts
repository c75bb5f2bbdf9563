import { generateKeyPairSync } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createServer } from "node:net";
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { HOOK_SECRETS } from "./test/support/hooks-config";
import { PLATFORM_SECRETS } from "./test/support/platforms/channels-config";
import { testConfig } from "./test/support/test-config";

/** A port nothing listens on right now, for test/support/fake-services-server.ts. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

/** Test files that need the deployment to themselves (vitest.config.ts `projects`, below). */
const FRESH_STATE = [
  "test/integration/list-query-cost.test.ts",
  "test/index-db/search-cost.test.ts",
  "test/messaging/send-creates-main.test.ts",
  // An agent's sub-agent slots (maxConcurrent) count its running sub-agents in the whole deployment.
  "test/subagents/**/*.test.ts",
  "test/session/collectors/**/*.test.ts",
  // These abort every object in their runtime (abortAllDurableObjects): only their own, here.
  "test/session/runs/interruption.test.ts",
  "test/session/runs/tool-replay.test.ts",
  // Enforcing retention deletes every idle session of an agent: only its own, here.
  "test/maintenance/**/*.test.ts",
];

/**
 * Test files slow enough (20 s and more under load) to hold up a project: a project of their own, on
 * storage of their own, run by `npm test` with the rest (or `npx vitest run --project slow`).
 */
const SLOW = [
  "test/session/collectors/collectors-200.test.ts",
  "test/integration/route-by-key-spread.test.ts",
];

/** Every package (and subpath) that src/ and test/ import, for `deps.optimizer` below. */
const PREBUNDLED = [
  "zod",
  "hono",
  "hono/jsx",
  "hono/jsx/jsx-runtime",
  "hono/factory",
  "hono/body-limit",
  "hono/utils/http-status",
  "hono/secure-headers",
  "hono/dev",
  "croner",
  "@cfworker/json-schema",
  "@ai-sdk/provider",
  "@ai-sdk/anthropic",
  "@ai-sdk/openai/internal",
  "workers-ai-provider",
  "@scalar/hono-api-reference",
  "@modelcontextprotocol/sdk/types.js",
  "@modelcontextprotocol/sdk/client/streamableHttp.js",
  "@modelcontextprotocol/sdk/client/index.js",
  "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js",
  "@modelcontextprotocol/sdk/server/index.js",
  "@modelcontextprotocol/sdk/inMemory.js",
];

export default defineConfig(async () => {
  const migrations = await readD1Migrations(path.join(import.meta.dirname, "migrations"));
  // Chosen once per vitest process: globalSetup (same process) listens on it, workerd gets the URL.
  process.env.FAKE_SERVICES_PORT ??= String(await freePort());
  const fakeServicesUrl = `http://127.0.0.1:${process.env.FAKE_SERVICES_PORT}`;
  // The local default `npm start` serves (config/local.json, bundled), so a test can compare the two.
  const localDefaultConfig = await readFile(path.join(import.meta.dirname, "config/local.json"), "utf8");
  // The Discord application's Ed25519 key pair, made for this run: the channel gets the public key, the
  // tests sign interactions with the private one (test/support/platforms/discord.ts).
  const discordKeys = generateKeyPairSync("ed25519");
  const discordPublicKey = Buffer.from(
    discordKeys.publicKey.export({ format: "jwk" }).x ?? "",
    "base64url",
  ).toString("hex");
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          // The whole suite runs sharded (README "Scaling"): the index in three D1 databases (DB of
          // wrangler.toml, then DB_1, DB_2) and the deliveries in two queues, both consumed by the Worker.
          d1Databases: { DB_1: "switchboard-shard-1", DB_2: "switchboard-shard-2" },
          queueProducers: { DELIVERIES_1: { queueName: "switchboard-deliveries-1" } },
          queueConsumers: {
            "switchboard-deliveries-1": {
              maxBatchSize: 10,
              maxBatchTimeout: 1,
              maxRetries: 12,
              deadLetterQueue: "switchboard-deliveries-dlq",
            },
          },
          // Test-only credentials; production ones are Worker secrets (README "Deploy").
          bindings: {
            TEST_MIGRATIONS: migrations,
            SWITCHBOARD_ADMIN_TOKEN: "test-admin-token",
            SWITCHBOARD_AGENT_TOKENS: JSON.stringify({
              main: "test-main-token",
              research: "test-research-token",
              ops: "test-ops-token",
              public: "test-public-token",
            }),
            SWITCHBOARD_SIGNING_KEY: "test-signing-key-0123456789abcdef",
            // The API key of the model-auth-echo agent: 36 characters of no shape a redaction pattern knows.
            FAKE_MODEL_KEY: "fmk-0123456789abcdefghijklmnopqrstuv",
            // The chat platforms' bot credentials (test-config.ts channels tg-bot, slack-bot, discord-bot).
            TEST_TELEGRAM_BOT_TOKEN: "123456789:AAtelegram-test-token-0123456789abcdef",
            TEST_SLACK_BOT_TOKEN: "xoxb-test-slack-bot-token-0123456789",
            TEST_SLACK_SIGNING_SECRET: "slack-test-signing-secret-0123456789",
            TEST_DISCORD_BOT_TOKEN: "discord-test-bot-token-0123456789.abcdef",
            // The real HTTP server of test/support/fake-services-server.ts (model API, agent webhooks).
            FAKE_SERVICES_URL: fakeServicesUrl,
            SWITCHBOARD_CONFIG: JSON.stringify(testConfig(fakeServicesUrl, discordPublicKey)),
            // The chat platforms' credentials (test/support/platforms/channels-config.ts).
            ...PLATFORM_SECRETS,
            ...HOOK_SECRETS,
            TEST_DISCORD_PRIVATE_KEY: JSON.stringify(discordKeys.privateKey.export({ format: "jwk" })),
            LOCAL_DEFAULT_CONFIG: localDefaultConfig,
          },
        },
      }),
    ],
    test: {
      // Two test files at a time (one per core); vitest's default on two cores is one.
      maxWorkers: 2,
      // The packages the Worker imports, pre-bundled once per project (node_modules/.vite): the plugin
      // inlines every dependency, and a fresh runtime (the fresh and slow projects start one per file)
      // otherwise loads each of their hundreds of modules one by one. About a sixth off `npm test`.
      deps: { optimizer: { ssr: { enabled: true, include: PREBUNDLED } } },
      // A bound for a stuck test, not a timing assertion: slow fakes and queue batches need seconds.
      testTimeout: 20_000,
      // The Worker's own logs (a retried index write, a refused call) go straight to workerd's output, not
      // through vitest's RPC: a log still in flight when a file's runtime closes would otherwise fail the
      // run ("Closing rpc while onUserConsoleLog was pending"), though every test passed.
      disableConsoleIntercept: true,
      globalSetup: ["./test/support/fake-services-server.ts"],
      setupFiles: ["./test/support/apply-migrations.ts"],
      projects: [
        // Most files share a runtime, its loaded modules and its storage with the files run before them
        // in the same worker (isolate: false): loading the Worker's modules once per worker instead of
        // once per file halves the suite. Their sessions have keys of their own, so others' do not matter.
        {
          extends: true,
          test: {
            name: "shared",
            isolate: false,
            include: ["test/**/*.test.ts"],
            exclude: [...FRESH_STATE, ...SLOW],
          },
        },
        // These assert things of the whole deployment (every session listed, an agent's sub-agent slots,
        // a main session that does not exist yet): each runs on storage of its own.
        { extends: true, test: { name: "fresh", include: FRESH_STATE, exclude: SLOW } },
        // The 200-child collector group: storage of its own too (it counts the agent's running sub-agents).
        { extends: true, test: { name: "slow", include: SLOW } },
      ],
    },
  };
});
