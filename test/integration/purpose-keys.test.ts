import { env as workerEnv } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { hmacSha256, toBase64Url } from "../../src/auth/hmac";
import { authenticate } from "../../src/auth/identity";
import { deriveKey, type KeyPurpose } from "../../src/auth/purpose-keys";
import { mintRunToken, type RunTokenClaims } from "../../src/auth/run-token";
import { configSchema } from "../../src/config/schema";
import {
  ADMIN,
  call,
  channelSecret,
  createSession,
  inbound,
  liveRun,
  postInbound,
  SIGNING_KEY,
  uid,
  webhookAgentSecret,
} from "../support";

/** A run token as an attacker holding `secret` would make it: the token format, HMAC'd with that secret. */
async function forgeRunToken(secret: string, claims: RunTokenClaims): Promise<string> {
  const body = `sbr1.${toBase64Url(new TextEncoder().encode(JSON.stringify(claims)))}`;
  return `${body}.${toBase64Url(await hmacSha256(secret, body))}`;
}

/** Claims for a research agent's session, which the main agent's channel must never reach. */
const claimsFor = (sessionKey: string): RunTokenClaims => ({
  agentId: "research",
  sessionKey,
  runId: crypto.randomUUID(),
  depth: 0,
  sandboxed: false,
  exp: Math.floor(Date.now() / 1000) + 600,
});

describe("one key per purpose (a third party's secret never mints run tokens)", () => {
  it("a channel's secret signs its inbound posts but a run token forged with it is a 401", async () => {
    const u = uid();
    const secret = await channelSecret("telegram");
    // The secret really is what the channel accepts: a post signed with it starts a run.
    const posted = await postInbound(
      "telegram",
      inbound({ senderId: `pk${u}`, chatId: "c", messageId: `m-${u}` }),
      { secret },
    );
    expect(posted.status).toBe(202);

    const victim = (await createSession({ agentId: "research", key: `agent:research:secret-${u}` }))
      .key as string;
    const forged = await forgeRunToken(secret, claimsFor(victim));
    const history = await call("POST", "/tools/invoke", {
      token: forged,
      body: { tool: "sessions_history", args: { sessionKey: victim } },
    });
    expect(history.status).toBe(401);
    expect(history.json).toMatchObject({ ok: false, error: { message: "unauthorized" } });
  });

  it("a webhook agent's secret does not mint run tokens either: 401", async () => {
    const u = uid();
    const victim = (await createSession({ agentId: "research", key: `agent:research:hook-${u}` }))
      .key as string;
    const forged = await forgeRunToken(await webhookAgentSecret("hook-sync-rec"), claimsFor(victim));
    expect((await call("POST", "/v1/tools/session_status", { token: forged, body: {} })).status).toBe(401);
  });

  it("run tokens are not signed with the root key itself, and a genuine one still works", async () => {
    const u = uid();
    const own = (await createSession({ agentId: "research", key: `agent:research:own-${u}` })).key as string;
    const rootSigned = await forgeRunToken(SIGNING_KEY, claimsFor(own));
    expect((await call("POST", "/v1/tools/session_status", { token: rootSigned, body: {} })).status).toBe(
      401,
    );
    // A run token acts only while its run lives: this one is for a run in flight.
    const genuine = await mintRunToken(SIGNING_KEY, {
      ...claimsFor(own),
      runId: await liveRun(own, "research"),
    });
    const status = await call("POST", "/v1/tools/session_status", { token: genuine, body: {} });
    expect(status.status, status.text).toBe(200);
    expect(status.json).toMatchObject({ sessionKey: own });
  });

  it("derives a distinct, stable key for every purpose", async () => {
    const purposes: KeyPurpose[] = [
      { use: "run-token" },
      { use: "grant" },
      { use: "channel", channel: "telegram" },
      { use: "channel", channel: "discord" },
      { use: "webhook-agent", agentId: "main" },
      { use: "webhook-agent", agentId: "research" },
    ];
    const keys = await Promise.all(purposes.map((purpose) => deriveKey(SIGNING_KEY, purpose)));
    expect(new Set(keys).size).toBe(purposes.length);
    for (const key of keys) {
      expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(key).not.toContain(SIGNING_KEY);
    }
    expect(await deriveKey(SIGNING_KEY, { use: "channel", channel: "telegram" })).toBe(keys[2]);
    expect(await deriveKey(`${SIGNING_KEY}-rotated`, { use: "run-token" })).not.toBe(keys[0]);
  });
});

describe("key rotation", () => {
  const env = {
    DB: workerEnv.DB,
    SESSION: workerEnv.SESSION,
    SWITCHBOARD_ADMIN_TOKEN: ADMIN,
    SWITCHBOARD_AGENT_TOKENS: "{}",
    SWITCHBOARD_SIGNING_KEY: "new-signing-key-0123456789abcdef",
    SWITCHBOARD_SIGNING_KEY_PREVIOUS: "old-signing-key-0123456789abcdef",
  };
  const claims = claimsFor("agent:research:main");

  it("accepts run tokens of the previous key while it is set, and not after", async () => {
    const old = await mintRunToken(env.SWITCHBOARD_SIGNING_KEY_PREVIOUS, claims);
    expect(await authenticate(env, old)).toEqual({ kind: "run", claims });
    expect(await authenticate({ ...env, SWITCHBOARD_SIGNING_KEY_PREVIOUS: "" }, old)).toBeUndefined();
    const unrelated = await mintRunToken("unrelated-key-0123456789abcdef", claims);
    expect(await authenticate(env, unrelated)).toBeUndefined();
  });

  it("never accepts the previous key alone, without a current one", async () => {
    const old = await mintRunToken(env.SWITCHBOARD_SIGNING_KEY_PREVIOUS, claims);
    expect(await authenticate({ ...env, SWITCHBOARD_SIGNING_KEY: "" }, old)).toBeUndefined();
  });
});

describe("configuration never hands Switchboard's own keys to a third party", () => {
  const reserved = ["SWITCHBOARD_SIGNING_KEY", "SWITCHBOARD_SIGNING_KEY_PREVIOUS", "SWITCHBOARD_ADMIN_TOKEN"];

  it.each(reserved)("rejects %s as a channel's, webhook agent's or model's secret", (name) => {
    const documents = [
      { channels: { telegram: { secretEnv: name } } },
      {
        agents: {
          list: [{ id: "hook", runtime: { type: "webhook", url: "https://a.test", secretEnv: name } }],
        },
      },
      {
        agents: {
          list: [
            {
              id: "llm",
              runtime: { type: "openai", baseUrl: "https://m.test", model: "m", apiKeyEnv: name },
            },
          ],
        },
      },
    ];
    const paths = [
      ["channels", "telegram", "secretEnv"],
      ["agents", "list", 0, "runtime", "secretEnv"],
      ["agents", "list", 0, "runtime", "apiKeyEnv"],
    ];
    documents.forEach((document, index) => {
      const parsed = configSchema.safeParse(document);
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues[0]?.path).toEqual(paths[index]);
      expect(parsed.error?.issues[0]?.message).toContain("Switchboard's own credentials");
    });
  });

  it("accepts a secret of the channel's own", () => {
    expect(configSchema.safeParse({ channels: { telegram: { secretEnv: "TELEGRAM_SECRET" } } }).success).toBe(
      true,
    );
  });
});
