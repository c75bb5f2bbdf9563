import { toBase64Url, toHex } from "./hmac";

/** What a grant lets its token do in its one session (SPEC §18). */
export const GRANT_SCOPES = ["read", "send", "events"] as const;
export type GrantScope = (typeof GRANT_SCOPES)[number];

const PREFIX = "sbg_";
const SECRET_BYTES = 32;
// `sbg_<grantId>.<secret>`: a UUID, then 32 random bytes as base64url (43 characters, no padding).
const TOKEN_SHAPE =
  /^sbg_([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.([A-Za-z0-9_-]{43})$/;

/** True when the string has the shape of a grant token (not whether it is valid). */
export function looksLikeGrantToken(token: string): boolean {
  return token.startsWith(PREFIX);
}

/** A grant token's id and secret; undefined for a string not shaped like one. */
export function parseGrantToken(token: string): { grantId: string; secret: string } | undefined {
  const match = TOKEN_SHAPE.exec(token);
  return match?.[1] && match[2] ? { grantId: match[1], secret: match[2] } : undefined;
}

/** A new grant's token: the random secret alone proves it, no service key is involved. */
export function mintGrantToken(grantId: string): { token: string; secret: string } {
  const secret = toBase64Url(crypto.getRandomValues(new Uint8Array(SECRET_BYTES)));
  return { token: `${PREFIX}${grantId}.${secret}`, secret };
}

/** The hex SHA-256 of a grant secret: what storage keeps instead of the token. */
export async function hashGrantSecret(secret: string): Promise<string> {
  return toHex(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(secret)));
}
