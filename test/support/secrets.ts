import { env } from "cloudflare:workers";

/** The API key of the `model-auth-echo` agent (vitest.config.ts binds it): its fake model quotes it back. */
export function fakeModelKey(): string {
  if (!env.FAKE_MODEL_KEY) throw new Error("vitest.config.ts must bind FAKE_MODEL_KEY");
  return env.FAKE_MODEL_KEY;
}

/**
 * Whether `text` shows more of `secret` than its mask keeps (the first 6 and the last 4 characters): any
 * 7 of its characters in a row, whole or cut.
 */
export function showsSecret(text: string, secret: string): boolean {
  for (let at = 0; at + 7 <= secret.length; at++) if (text.includes(secret.slice(at, at + 7))) return true;
  return false;
}
