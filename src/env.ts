// The Worker's bindings are generated from wrangler.toml by `npm run types` into
// worker-configuration.d.ts (committed; CI checks it is current). Secrets are declared here instead:
// wrangler types can only type a secret as a required string (`secrets.required`, which `wrangler deploy`
// would also insist is set), and every one of these may be absent. Test-only bindings are in
// test/env.d.ts, outside the Worker's types.
declare global {
  namespace Cloudflare {
    interface Env {
      /** The configuration document; absent, the built-in default applies (README "Configuration"). */
      SWITCHBOARD_CONFIG?: string;
      SWITCHBOARD_ADMIN_TOKEN?: string;
      SWITCHBOARD_AGENT_TOKENS?: string;
      SWITCHBOARD_SIGNING_KEY?: string;
      /** During a key rotation: the previous signing key, still accepted by verifiers (never used to sign). */
      SWITCHBOARD_SIGNING_KEY_PREVIOUS?: string;
      /**
       * The Workers AI binding (wrangler.toml `[ai] binding = "AI"`), for agents whose runtime is
       * `workers-ai`: optional, so a deployment without such agents needs no Workers AI.
       */
      AI?: Ai;
      /** Further index shards after `DB` (src/index-db/shards.ts), optional: none bound is one shard. */
      readonly [shard: `DB_${number}`]: D1Database | undefined;
      /** Further deliveries queues after `DELIVERIES` (src/queue/queues.ts), optional likewise. */
      readonly [queue: `DELIVERIES_${number}`]: Queue | undefined;
    }
  }
  // The global Env (what src/ names) has the secrets too, not only the generated bindings.
  interface Env extends Cloudflare.Env {}
}

export {};
