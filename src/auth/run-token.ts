import { z } from "zod";
import { fromBase64Url, hmacSha256, toBase64Url, verifyHmacSha256 } from "./hmac";
import { deriveKey } from "./purpose-keys";

const RUN_TOKEN_KEY = { use: "run-token" } as const;

const PREFIX = "sbr1";

export const runTokenClaimsSchema = z.strictObject({
  agentId: z.string(),
  sessionKey: z.string(),
  /** The session's id (SPEC §23): the run acts for this session, not for a later one under its key. */
  sessionId: z.string().optional(),
  runId: z.string(),
  depth: z.number().int().min(0),
  sandboxed: z.boolean(),
  /** sessions_send hops that led to the run, so sends made with the token keep counting (SPEC §5.3). */
  hop: z.number().int().min(0).optional(),
  /** The run is a collector child's with an outputSchema, so it may call structured_output (SPEC §15). */
  structuredOutput: z.literal(true).optional(),
  /** The run is a collector child's, which never yields: it settles at its end (SPEC §15). */
  collector: z.literal(true).optional(),
  /** Expiry, unix seconds. */
  exp: z.number().int(),
});
export type RunTokenClaims = z.infer<typeof runTokenClaimsSchema>;

/**
 * Mints a run token: `sbr1.<claims>.<HMAC-SHA256 of "sbr1.<claims>">`, base64url parts, keyed with the
 * run-token key derived from the root signing key (never the root key itself, see purpose-keys.ts).
 */
export async function mintRunToken(rootKey: string, claims: RunTokenClaims): Promise<string> {
  const body = `${PREFIX}.${toBase64Url(new TextEncoder().encode(JSON.stringify(claims)))}`;
  return `${body}.${toBase64Url(await hmacSha256(await deriveKey(rootKey, RUN_TOKEN_KEY), body))}`;
}

/** True when the string has the shape of a run token (not whether it is valid). */
export function looksLikeRunToken(token: string): boolean {
  return token.startsWith(`${PREFIX}.`);
}

/** Verifies signature (under any of the root keys in force) and expiry; undefined for anything not valid now. */
export async function verifyRunToken(
  rootKeys: string | readonly string[],
  token: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): Promise<RunTokenClaims | undefined> {
  const [prefix, claimsPart, signaturePart, extra] = token.split(".");
  if (prefix !== PREFIX || !claimsPart || !signaturePart || extra !== undefined) return undefined;
  const signature = fromBase64Url(signaturePart);
  if (!signature) return undefined;
  let valid = false;
  for (const root of typeof rootKeys === "string" ? [rootKeys] : rootKeys) {
    const key = await deriveKey(root, RUN_TOKEN_KEY);
    valid ||= await verifyHmacSha256(key, `${prefix}.${claimsPart}`, signature.buffer as ArrayBuffer);
  }
  if (!valid) return undefined;
  const bytes = fromBase64Url(claimsPart);
  if (!bytes) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
  const claims = runTokenClaimsSchema.safeParse(json);
  if (!claims.success || claims.data.exp <= nowSeconds) return undefined;
  return claims.data;
}
