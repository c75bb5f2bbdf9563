declare global {
  interface Env {
    DB: D1Database;
    SESSION: DurableObjectNamespace<import("./session/session-object").SessionObject>;
    DELIVERIES: Queue;
    DEAD_LETTERS: Queue;
    SWITCHBOARD_CONFIG: string;
    SWITCHBOARD_ADMIN_TOKEN?: string;
    SWITCHBOARD_AGENT_TOKENS?: string;
    SWITCHBOARD_SIGNING_KEY?: string;
    /** During a key rotation: the previous signing key, still accepted by verifiers (never used to sign). */
    SWITCHBOARD_SIGNING_KEY_PREVIOUS?: string;
    TEST_MIGRATIONS?: import("cloudflare:test").D1Migration[];
    /** Tests only: the local HTTP server of test/setup/fake-services.ts. */
    FAKE_SERVICES_URL?: string;
    /** Tests only: the demo configuration (scripts/demo-config.json), as `npm start` serves it. */
    LOCAL_DEFAULT_CONFIG?: string;
  }
  namespace Cloudflare {
    interface Env extends globalThis.Env {}
    // Types `exports` from "cloudflare:workers" (what `wrangler types` would generate).
    interface GlobalProps {
      mainModule: typeof import("./index");
      durableNamespaces: "SessionObject";
    }
  }
}

export {};
