import { deriveKey } from "../../src/auth/purpose-keys";
import { mintRunToken, type RunTokenClaims } from "../../src/auth/run-token";

/** The operator token vitest.config.ts binds as SWITCHBOARD_ADMIN_TOKEN. */
export const ADMIN = "test-admin-token";

/** The agent tokens vitest.config.ts binds as SWITCHBOARD_AGENT_TOKENS. */
export const AGENT_TOKENS = {
  main: "test-main-token",
  research: "test-research-token",
  ops: "test-ops-token",
} as const;

/** The test binding SWITCHBOARD_SIGNING_KEY: the root of every derived key (run tokens, channels). */
export const SIGNING_KEY = "test-signing-key-0123456789abcdef";

/** The secret the service derives for a channel without `secretEnv`: signs its posts both ways. */
export const channelSecret = (channel: string) => deriveKey(SIGNING_KEY, { use: "channel", channel });

/** The secret the service derives for a webhook agent without `secretEnv`. */
export const webhookAgentSecret = (agentId: string) =>
  deriveKey(SIGNING_KEY, { use: "webhook-agent", agentId });

/** A run token for a run of `sessionKey` (agent `main`, depth 0, not sandboxed unless told), valid ten minutes. */
export function runToken(claims: Partial<RunTokenClaims> & { sessionKey: string }): Promise<string> {
  return mintRunToken(SIGNING_KEY, {
    agentId: "main",
    runId: crypto.randomUUID(),
    depth: 0,
    sandboxed: false,
    exp: Math.floor(Date.now() / 1000) + 600,
    ...claims,
  });
}
