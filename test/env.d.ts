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
    /** The demo configuration (scripts/demo-config.json), as `npm start` serves it. */
    LOCAL_DEFAULT_CONFIG?: string;
  }
}
