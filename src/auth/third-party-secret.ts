import { readSecret } from "../config/secrets";
import { deriveKey, type KeyPurpose, rootKeys } from "./purpose-keys";

/** The secrets a third party (channel bridge, webhook agent) signs with: the first signs, any verifies. */
export type ThirdPartySecrets = { ok: true; secrets: string[] } | { ok: false; error: string };

/**
 * A channel's or webhook agent's secret: the one its `secretEnv` names, else a key derived for exactly
 * that channel or agent from the signing key (never the signing key itself, which mints run tokens).
 */
export async function thirdPartySecrets(
  env: Env,
  purpose: Extract<KeyPurpose, { use: "channel" | "webhook-agent" }>,
  secretEnv: string | undefined,
): Promise<ThirdPartySecrets> {
  if (secretEnv) {
    const secret = readSecret(env, secretEnv);
    return secret ? { ok: true, secrets: [secret] } : { ok: false, error: `secret ${secretEnv} is not set` };
  }
  const roots = rootKeys(env);
  if (roots.length === 0)
    return { ok: false, error: "secret SWITCHBOARD_SIGNING_KEY is not set (the derived secrets need it)" };
  return { ok: true, secrets: await Promise.all(roots.map((root) => deriveKey(root, purpose))) };
}
