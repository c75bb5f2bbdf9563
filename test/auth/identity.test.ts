import { env as workerEnv } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { authenticate, bearerToken } from "../../src/auth/identity";
import { mintRunToken } from "../../src/auth/run-token";

const env = {
  DB: workerEnv.DB,
  SESSION: workerEnv.SESSION,
  SWITCHBOARD_ADMIN_TOKEN: "admin-secret",
  SWITCHBOARD_AGENT_TOKENS: JSON.stringify({ Main: "main-secret", ops: "ops-secret" }),
  SWITCHBOARD_SIGNING_KEY: "signing-key-0123456789",
};

describe("bearerToken", () => {
  it("reads the token of a Bearer header", () => {
    expect(bearerToken("Bearer abc")).toBe("abc");
    expect(bearerToken("bearer   abc  ")).toBe("abc");
  });

  it("rejects other schemes and malformed headers", () => {
    expect(bearerToken(undefined)).toBeUndefined();
    expect(bearerToken("")).toBeUndefined();
    expect(bearerToken("Basic abc")).toBeUndefined();
    expect(bearerToken("Bearer")).toBeUndefined();
    expect(bearerToken("Bearer a b")).toBeUndefined();
    expect(bearerToken("abc")).toBeUndefined();
  });
});

describe("authenticate", () => {
  it("recognises the operator token", async () => {
    expect(await authenticate(env, "admin-secret")).toEqual({ kind: "operator" });
  });

  it("recognises agent tokens, lower-casing the agent id", async () => {
    expect(await authenticate(env, "main-secret")).toEqual({ kind: "agent", agentId: "main" });
    expect(await authenticate(env, "ops-secret")).toEqual({ kind: "agent", agentId: "ops" });
  });

  it("recognises a valid run token and rejects an expired one", async () => {
    const claims = {
      agentId: "main",
      sessionKey: "agent:main:main",
      runId: "r1",
      depth: 0,
      sandboxed: false,
      exp: Math.floor(Date.now() / 1000) + 60,
    };
    const token = await mintRunToken(env.SWITCHBOARD_SIGNING_KEY, claims);
    expect(await authenticate(env, token)).toEqual({ kind: "run", claims });
    const expired = await mintRunToken(env.SWITCHBOARD_SIGNING_KEY, { ...claims, exp: claims.exp - 120 });
    expect(await authenticate(env, expired)).toBeUndefined();
  });

  it("rejects run tokens when no signing key is configured", async () => {
    const token = await mintRunToken(env.SWITCHBOARD_SIGNING_KEY, {
      agentId: "main",
      sessionKey: "agent:main:main",
      runId: "r1",
      depth: 0,
      sandboxed: false,
      exp: Math.floor(Date.now() / 1000) + 60,
    });
    expect(await authenticate({ ...env, SWITCHBOARD_SIGNING_KEY: undefined }, token)).toBeUndefined();
    expect(await authenticate({ ...env, SWITCHBOARD_SIGNING_KEY: "" }, token)).toBeUndefined();
    expect(await authenticate(env, token)).toBeDefined();
  });

  it("rejects missing, empty and unknown tokens", async () => {
    expect(await authenticate(env, undefined)).toBeUndefined();
    expect(await authenticate(env, "")).toBeUndefined();
    expect(await authenticate(env, "nope")).toBeUndefined();
    expect(await authenticate(env, "sbr1.forged.token")).toBeUndefined();
  });

  it("grants nothing when no operator token is configured", async () => {
    expect(
      await authenticate({ ...env, SWITCHBOARD_ADMIN_TOKEN: undefined }, "admin-secret"),
    ).toBeUndefined();
    expect(await authenticate({ ...env, SWITCHBOARD_ADMIN_TOKEN: "" }, "")).toBeUndefined();
  });

  it("grants nothing from a malformed agent-token secret", async () => {
    expect(await authenticate({ ...env, SWITCHBOARD_AGENT_TOKENS: "{oops" }, "main-secret")).toBeUndefined();
    expect(
      await authenticate({ ...env, SWITCHBOARD_AGENT_TOKENS: JSON.stringify({ main: "" }) }, ""),
    ).toBeUndefined();
  });
});
