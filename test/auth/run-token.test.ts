import { describe, expect, it } from "vitest";
import { fromBase64Url, hmacSha256, toBase64Url } from "../../src/auth/hmac";
import { deriveKey } from "../../src/auth/purpose-keys";
import {
  looksLikeRunToken,
  mintRunToken,
  type RunTokenClaims,
  verifyRunToken,
} from "../../src/auth/run-token";

const KEY = "test-signing-key-0123456789abcdef";
const NOW = 1_800_000_000;

const claims: RunTokenClaims = {
  agentId: "main",
  sessionKey: "agent:main:subagent:5f0c2a9e-8b1d-4c3e-9f7a-1234567890ab",
  runId: "0b8e7c1a-1111-4222-8333-444455556666",
  depth: 1,
  sandboxed: true,
  exp: NOW + 600,
};

const encodeClaims = (value: unknown) => toBase64Url(new TextEncoder().encode(JSON.stringify(value)));

/** Signs an arbitrary claims part the way mintRunToken does (its derived key), to build well-signed bad tokens. */
async function signRaw(claimsPart: string, key = KEY): Promise<string> {
  const body = `sbr1.${claimsPart}`;
  return `${body}.${toBase64Url(await hmacSha256(await deriveKey(key, { use: "run-token" }), body))}`;
}

describe("mint and verify", () => {
  it("round-trips the claims", async () => {
    const token = await mintRunToken(KEY, claims);
    expect(looksLikeRunToken(token)).toBe(true);
    expect(token.split(".")).toHaveLength(3);
    expect(await verifyRunToken(KEY, token, NOW)).toEqual(claims);
  });

  it("is valid until exp and not at or after it", async () => {
    const token = await mintRunToken(KEY, claims);
    expect(await verifyRunToken(KEY, token, claims.exp - 1)).toEqual(claims);
    expect(await verifyRunToken(KEY, token, claims.exp)).toBeUndefined();
    expect(await verifyRunToken(KEY, token, claims.exp + 3600)).toBeUndefined();
  });

  it("uses the clock by default", async () => {
    const now = Math.floor(Date.now() / 1000);
    expect(await verifyRunToken(KEY, await mintRunToken(KEY, { ...claims, exp: now + 60 }))).toBeDefined();
    expect(await verifyRunToken(KEY, await mintRunToken(KEY, { ...claims, exp: now - 1 }))).toBeUndefined();
  });

  it("rejects a token signed with another key", async () => {
    const token = await mintRunToken("another-signing-key-0123456789", claims);
    expect(await verifyRunToken(KEY, token, NOW)).toBeUndefined();
  });
});

describe("tampering", () => {
  it("rejects changed claims under the original signature", async () => {
    const [prefix, , signature] = (await mintRunToken(KEY, claims)).split(".");
    const forged = `${prefix}.${encodeClaims({ ...claims, sessionKey: "agent:main:main", depth: 0 })}.${signature}`;
    expect(await verifyRunToken(KEY, forged, NOW)).toBeUndefined();
  });

  it("rejects a later expiry under the original signature", async () => {
    const [prefix, , signature] = (await mintRunToken(KEY, claims)).split(".");
    const forged = `${prefix}.${encodeClaims({ ...claims, exp: NOW + 999_999 })}.${signature}`;
    expect(await verifyRunToken(KEY, forged, NOW)).toBeUndefined();
  });

  it("rejects a changed signature", async () => {
    const [prefix, claimsPart, signature = ""] = (await mintRunToken(KEY, claims)).split(".");
    const bytes = fromBase64Url(signature);
    if (!bytes) throw new Error("signature is not base64url");
    bytes[0] = (bytes[0] ?? 0) ^ 0xff;
    expect(await verifyRunToken(KEY, `${prefix}.${claimsPart}.${toBase64Url(bytes)}`, NOW)).toBeUndefined();
    expect(
      await verifyRunToken(KEY, `${prefix}.${claimsPart}.${signature.slice(0, -2)}`, NOW),
    ).toBeUndefined();
    expect(await verifyRunToken(KEY, `${prefix}.${claimsPart}.`, NOW)).toBeUndefined();
    expect(await verifyRunToken(KEY, `${prefix}.${claimsPart}.not*base64`, NOW)).toBeUndefined();
  });

  it("rejects a different prefix, missing parts and extra parts", async () => {
    const token = await mintRunToken(KEY, claims);
    const [, claimsPart, signature] = token.split(".");
    expect(await verifyRunToken(KEY, `sbr2.${claimsPart}.${signature}`, NOW)).toBeUndefined();
    expect(await verifyRunToken(KEY, `sbr1.${claimsPart}`, NOW)).toBeUndefined();
    expect(await verifyRunToken(KEY, `${token}.extra`, NOW)).toBeUndefined();
    expect(await verifyRunToken(KEY, "", NOW)).toBeUndefined();
  });

  it("rejects well-signed claims that are not valid claims", async () => {
    const { exp: _exp, ...withoutExp } = claims;
    for (const bad of [
      withoutExp,
      { ...claims, depth: -1 },
      { ...claims, depth: 1.5 },
      { ...claims, sandboxed: "no" },
      { ...claims, admin: true },
    ]) {
      expect(await verifyRunToken(KEY, await signRaw(encodeClaims(bad)), NOW)).toBeUndefined();
    }
    expect(
      await verifyRunToken(KEY, await signRaw(toBase64Url(new TextEncoder().encode("{nope"))), NOW),
    ).toBeUndefined();
    // Sanity check of the helper: the same path accepts valid claims.
    expect(await verifyRunToken(KEY, await signRaw(encodeClaims(claims)), NOW)).toEqual(claims);
  });
});

describe("looksLikeRunToken", () => {
  it("tells run tokens from other bearer tokens by prefix only", () => {
    expect(looksLikeRunToken("sbr1.abc.def")).toBe(true);
    expect(looksLikeRunToken("sbr1.")).toBe(true);
    expect(looksLikeRunToken("test-admin-token")).toBe(false);
    expect(looksLikeRunToken("sbr1")).toBe(false);
  });
});
