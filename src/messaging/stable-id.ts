import { toHex } from "../auth/hmac";
/** A UUID-shaped id derived from its parts: the same parts always give the same id (idempotency). */
export async function stableUuid(...parts: string[]): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(parts.join("\u0000"))),
  );
  // Version 8 (custom) and the RFC 9562 variant, so the id is a well-formed UUID.
  digest[6] = ((digest[6] ?? 0) & 0x0f) | 0x80;
  digest[8] = ((digest[8] ?? 0) & 0x3f) | 0x80;
  const hex = toHex(digest.slice(0, 16));
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
