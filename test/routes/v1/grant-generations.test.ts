import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { hashGrantSecret, mintGrantToken } from "../../../src/auth/grant-token";
import {
  ADMIN,
  AGENT_TOKENS,
  type ApiError,
  call,
  createSession,
  grantFor,
  openStream,
  sessionPath,
  uid,
} from "../../support";

const UNAUTHORIZED = { error: { code: "unauthorized", message: "unauthorized" } };

async function grantRow(grantId: string): Promise<Record<string, unknown> | null> {
  return env.DB.prepare("SELECT * FROM grants WHERE grant_id = ?").bind(grantId).first();
}

describe("a grant belongs to the session it was made for (SPEC §23 generations)", () => {
  it("is refused for a session that does not exist (404), writing nothing", async () => {
    const key = `agent:main:api:missing-${uid()}`;
    for (const token of [ADMIN, AGENT_TOKENS.main]) {
      const answer = await call<ApiError>("POST", "/v1/grants", {
        token,
        body: { sessionKey: key, scopes: ["read"], ttlSeconds: 60 },
      });
      expect(answer.status, answer.text).toBe(404);
      expect(answer.json.error.code).toBe("not_found");
    }
    const { results } = await env.DB.prepare("SELECT 1 FROM grants WHERE session_key = ?").bind(key).all();
    expect(results).toEqual([]);
  });

  it("stores the session id; deleting the session deletes it and it never opens the key's next session", async () => {
    const key = `agent:main:api:x-${uid()}`;
    const first = await createSession({ key });
    const grant = await grantFor(key, ["read", "send", "events"]);
    expect(await grantRow(grant.grantId)).toMatchObject({ session_id: first.sessionId, revoked_at: null });
    expect((await call("GET", sessionPath(key), { token: grant.token })).status).toBe(200);

    expect((await call("DELETE", sessionPath(key), { token: ADMIN })).status).toBe(200);
    expect(await grantRow(grant.grantId)).toBeNull();

    const second = await createSession({ key });
    expect(second.sessionId).not.toBe(first.sessionId);
    const uses: [string, string, unknown?][] = [
      ["GET", sessionPath(key)],
      ["GET", sessionPath(key, "/history")],
      ["POST", sessionPath(key, "/messages"), { text: "into the new session" }],
    ];
    for (const [method, path, body] of uses) {
      const answer = await call(method, path, { token: grant.token, body });
      expect(answer.status, `${method} ${path}`).toBe(401);
      expect(answer.json).toEqual(UNAUTHORIZED);
    }
    expect((await openStream(sessionPath(key, "/events?after=0"), { token: grant.token })).status).toBe(401);
    // Nothing reached the new session.
    const history = await call<{ messages: unknown[] }>("GET", sessionPath(key, "/history"), {
      token: ADMIN,
    });
    expect(history.json.messages).toEqual([]);
  });

  it("an unrevoked grant of an earlier generation (made before deletion revoked grants) still opens nothing", async () => {
    const key = `agent:main:api:old-${uid()}`;
    const first = await createSession({ key });
    expect((await call("DELETE", sessionPath(key), { token: ADMIN })).status).toBe(200);
    await createSession({ key });
    // A live grant row bound to the deleted generation's id, and one from before grants kept an id.
    const tokens: string[] = [];
    for (const sessionId of [first.sessionId, null]) {
      const grantId = crypto.randomUUID();
      const { token, secret } = mintGrantToken(grantId);
      await env.DB.prepare(
        `INSERT INTO grants (grant_id, secret_hash, session_key, session_id, agent_id, scopes, created_at, expires_at)
         VALUES (?, ?, ?, ?, 'main', 'read,send,events', ?, ?)`,
      )
        .bind(grantId, await hashGrantSecret(secret), key, sessionId, Date.now(), Date.now() + 600_000)
        .run();
      tokens.push(token);
    }
    for (const token of tokens) {
      expect((await call("GET", sessionPath(key), { token })).json).toEqual(UNAUTHORIZED);
      expect((await call("GET", sessionPath(key, "/history"), { token })).status).toBe(401);
    }
  });
});
