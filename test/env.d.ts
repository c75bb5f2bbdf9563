// Bindings only the tests have (vitest.config.ts binds them), so the Worker's Env never lists them.
// test/tsconfig.json includes this file; the root tsconfig.json (src/, scripts/) does not.
declare namespace Cloudflare {
  interface Env {
    TEST_MIGRATIONS?: import("cloudflare:test").D1Migration[];
    /** The local HTTP server of test/support/fake-services-server.ts. */
    FAKE_SERVICES_URL?: string;
    /** The API key of the `model-auth-echo` test agent, which its fake model quotes back. */
    FAKE_MODEL_KEY?: string;
    /** The chat platforms' bot tokens (channels tg-bot, slack-bot, discord-bot of test-config.ts). */
    TEST_TELEGRAM_BOT_TOKEN?: string;
    TEST_SLACK_BOT_TOKEN?: string;
    TEST_DISCORD_BOT_TOKEN?: string;
    /** The local default configuration (config/local.json), as `npm start` serves it, as text. */
    LOCAL_DEFAULT_CONFIG?: string;
    /** The Discord test application's Ed25519 private key (JWK), which signs the tests' interactions. */
    TEST_DISCORD_PRIVATE_KEY?: string;
  }
}

// The console's live module as code, not text (test/console/assets): the query keeps wrangler's Text rule
// off, and the module is the browser's plain JavaScript, so its one function under test is named here.
declare module "*/console-live.js?module" {
  /** The events of a `text/event-stream` response as they arrive (src/console/assets/console-live.js). */
  export function events(response: Response): AsyncGenerator<{ id?: string; event: string; data: unknown }>;
}
