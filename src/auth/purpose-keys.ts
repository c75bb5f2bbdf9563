/**
 * One key per purpose (run tokens, grants, each channel, each webhook agent, outbound webhooks), each derived from the
 * root signing key with HKDF-SHA256 and a label. A secret handed to a third party (a channel bridge, a
 * webhook agent) is therefore never a key that can mint run tokens, and one leaked channel secret says
 * nothing about another. Rotating SWITCHBOARD_SIGNING_KEY rotates every derived key at once; during a
 * rotation SWITCHBOARD_SIGNING_KEY_PREVIOUS is still accepted by verifiers (README "Keys and rotation").
 */
export type KeyPurpose =
  | { use: "run-token" }
  | { use: "grant" }
  | { use: "channel"; channel: string }
  | { use: "webhook-agent"; agentId: string }
  /** Every outbound webhook (SPEC §22: run webhooks, cron and hook deliveries in `webhook` mode). */
  | { use: "webhooks" };

/** The HKDF `info` label of a purpose; versioned so a change of scheme never reuses a key. */
export function purposeLabel(purpose: KeyPurpose): string {
  switch (purpose.use) {
    case "run-token":
    case "grant":
    case "webhooks":
      return `switchboard/${purpose.use}/v1`;
    case "channel":
      return `switchboard/channel/${purpose.channel}/v1`;
    case "webhook-agent":
      return `switchboard/webhook-agent/${purpose.agentId}/v1`;
  }
}

const encoder = new TextEncoder();
const SALT = encoder.encode("switchboard purpose keys");
// Derivation is a WebCrypto round trip; the same (root, label) pair is asked for on every request.
// Values, not promises, are kept: a promise made in one request must not be awaited by another.
const derived = new Map<string, string>();
const MAX_CACHED = 256;

async function hkdf(rootKey: string, label: string): Promise<string> {
  const root = await crypto.subtle.importKey("raw", encoder.encode(rootKey), "HKDF", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits(
    { name: "HKDF", hash: "SHA-256", salt: SALT, info: encoder.encode(label) },
    root,
    256,
  );
  // base64url without padding: printable, so it can be pasted into a bridge's configuration.
  return btoa(String.fromCharCode(...new Uint8Array(bits)))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");
}

/** The key for `purpose` derived from `rootKey` (43 base64url characters). */
export async function deriveKey(rootKey: string, purpose: KeyPurpose): Promise<string> {
  const label = purposeLabel(purpose);
  const id = `${label}\n${rootKey}`;
  const cached = derived.get(id);
  if (cached) return cached;
  const key = await hkdf(rootKey, label);
  if (derived.size >= MAX_CACHED) derived.clear();
  derived.set(id, key);
  return key;
}

/** The root keys in force: the signing key, then the previous one while a rotation is under way. */
export function rootKeys(
  env: Pick<Env, "SWITCHBOARD_SIGNING_KEY" | "SWITCHBOARD_SIGNING_KEY_PREVIOUS">,
): string[] {
  // No current key means nothing is signed; the previous one alone never stands in for it.
  if (!env.SWITCHBOARD_SIGNING_KEY) return [];
  const previous = env.SWITCHBOARD_SIGNING_KEY_PREVIOUS;
  return previous ? [env.SWITCHBOARD_SIGNING_KEY, previous] : [env.SWITCHBOARD_SIGNING_KEY];
}
