import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { hashGrantSecret, mintGrantToken } from "../../../src/auth/grant-token";
import {
  ADMIN,
  AGENT_TOKENS,
  type AnyError,
  type ApiError,
  call,
  createSession,
  importMessages,
  msg,
  openStream,
  runToken,
  sendMessage,
  sessionPath,
  tool,
  UUID,
  uid,
} from "../../support";

interface CreatedGrant {
  grantId: string;
  token: string;
  expiresAt: number;
  sessionKey: string;
  scopes: string[];
}

const GRANT_REACH = "a grant token reaches only its session's read, send and events routes";
const UNAUTHORIZED = { error: { code: "unauthorized", message: "unauthorized" } };

const createGrant = (body: unknown, token: string = ADMIN) =>
  call<CreatedGrant & ApiError>("POST", "/v1/grants", { token, body });

/** A grant created as the operator; expects 201. */
async function grantFor(sessionKey: string, scopes: string[]): Promise<CreatedGrant> {
  const created = await createGrant({ sessionKey, scopes, ttlSeconds: 600 });
  expect(created.status, created.text).toBe(201);
  return created.json;
}

/** The stored grant rows of a session, every column. */
async function grantRows(sessionKey: string): Promise<Record<string, unknown>[]> {
  const { results } = await env.DB.prepare("SELECT * FROM grants WHERE session_key = ?")
    .bind(sessionKey)
    .all<Record<string, unknown>>();
  return results;
}

/** A fresh session of agent main with two messages, one of them with a secret to mask. */
async function chatSession(): Promise<string> {
  const key = `agent:main:grants-${uid()}`;
  await createSession({ agentId: "main", key });
  const now = Date.now();
  await importMessages(key, [
    msg("m1", "user", "Hello, my key is sk-1234567890abcdef1234", now),
    msg("m2", "assistant", [{ type: "text", text: "Before <think>hidden</think> after" }], now + 1),
  ]);
  return key;
}

describe("POST /v1/grants", () => {
  it("creates a grant for the operator and for an agent token in its own agent, storing only a hash", async () => {
    const key = await chatSession();
    const before = Date.now();
    const created = await createGrant({ sessionKey: key, scopes: ["send", "read", "send"], ttlSeconds: 60 });
    expect(created.status, created.text).toBe(201);
    const grant = created.json;
    expect(Object.keys(grant).sort()).toEqual(["expiresAt", "grantId", "scopes", "sessionKey", "token"]);
    expect(grant.grantId).toMatch(UUID);
    expect(grant.token).toMatch(new RegExp(`^sbg_${grant.grantId}\\.[A-Za-z0-9_-]{43}$`));
    expect(grant.sessionKey).toBe(key);
    expect(grant.scopes).toEqual(["read", "send"]);
    expect(grant.expiresAt).toBeGreaterThanOrEqual(before + 60_000);
    expect(grant.expiresAt).toBeLessThanOrEqual(Date.now() + 60_000);

    const [row, ...others] = await grantRows(key);
    expect(others).toEqual([]);
    expect(row).toMatchObject({
      grant_id: grant.grantId,
      agent_id: "main",
      scopes: "read,send",
      revoked_at: null,
    });
    const secret = grant.token.split(".")[1] ?? "";
    expect(row?.secret_hash).toBe(await hashGrantSecret(secret));
    expect(JSON.stringify(row)).not.toContain(secret);

    // An agent token grants its own agent's sessions, legacy keys read as its own.
    const legacy = `grants-legacy-${uid()}`;
    await createSession({ key: `agent:main:${legacy}` });
    const byAgent = await createGrant(
      { sessionKey: legacy, scopes: ["events"], ttlSeconds: 604_800 },
      AGENT_TOKENS.main,
    );
    expect(byAgent.status, byAgent.text).toBe(201);
    expect(byAgent.json.sessionKey).toBe(`agent:main:${legacy}`);
    const foreign = await createGrant(
      { sessionKey: key, scopes: ["read"], ttlSeconds: 60 },
      AGENT_TOKENS.research,
    );
    expect(foreign.status).toBe(403);
    expect(foreign.json.error.code).toBe("forbidden");

    // Run tokens and grant tokens never hand out grants.
    const asRun = await createGrant(
      { sessionKey: key, scopes: ["read"], ttlSeconds: 60 },
      await runToken({ sessionKey: key }),
    );
    expect(asRun.status).toBe(403);
    const asGrant = await createGrant({ sessionKey: key, scopes: ["read"], ttlSeconds: 60 }, grant.token);
    expect(asGrant.status).toBe(403);
    expect(await grantRows(key)).toHaveLength(1);
  });

  it("answers bad input with a 400 naming the field and writes nothing", async () => {
    const key = `agent:main:grants-bad-${uid()}`;
    const cases: [unknown, string][] = [
      [{ sessionKey: key, scopes: ["admin"], ttlSeconds: 60 }, "scopes.0"],
      [{ sessionKey: key, scopes: [], ttlSeconds: 60 }, "scopes"],
      [{ sessionKey: key, scopes: "read", ttlSeconds: 60 }, "scopes"],
      [{ sessionKey: key, scopes: ["read"], ttlSeconds: 59 }, "ttlSeconds"],
      [{ sessionKey: key, scopes: ["read"], ttlSeconds: 604_801 }, "ttlSeconds"],
      [{ sessionKey: key, scopes: ["read"], ttlSeconds: 1.5 }, "ttlSeconds"],
      [{ sessionKey: key, scopes: ["read"] }, "ttlSeconds"],
      [{ scopes: ["read"], ttlSeconds: 60 }, "sessionKey"],
      [{ sessionKey: key, scopes: ["read"], ttlSeconds: 60, admin: true }, "admin"],
      [{ sessionKey: "agent:nobody:main", scopes: ["read"], ttlSeconds: 60 }, "sessionKey: unknown agent"],
    ];
    for (const [body, field] of cases) {
      const answer = await createGrant(body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.json.error.code).toBe("bad_request");
      expect(answer.json.error.message, JSON.stringify(body)).toContain(field);
    }
    expect(await grantRows(key)).toEqual([]);
    expect(await grantRows("agent:nobody:main")).toEqual([]);
  });
});

describe("a grant token", () => {
  it("with read: its session and its safe history, nothing else", async () => {
    const key = await chatSession();
    const other = await chatSession();
    const { token } = await grantFor(key, ["read"]);

    const described = await call<{ key: string }>("GET", sessionPath(key), { token });
    expect(described.status, described.text).toBe(200);
    expect(described.json.key).toBe(key);
    const history = await call("GET", sessionPath(key, "/history?limit=5"), { token });
    expect(history.status, history.text).toBe(200);
    expect(history.json).toEqual(await tool("sessions_history", key, { sessionKey: key, limit: 5 }));
    expect(history.text).not.toContain("hidden");
    expect(history.text).not.toContain("sk-1234567890abcdef1234");

    const refusals: [string, string, unknown?][] = [
      ["GET", sessionPath(other)],
      ["GET", sessionPath(other, "/history")],
      ["POST", sessionPath(key, "/messages"), { text: "hi" }],
      ["GET", sessionPath(key, "/events")],
      ["GET", sessionPath(key, "/transcript.jsonl")],
      ["GET", sessionPath(key, "/attachments/a.txt")],
      ["PATCH", sessionPath(key), { label: "x" }],
      ["DELETE", sessionPath(key)],
      ["POST", "/v1/sessions", { agentId: "main" }],
      ["POST", "/tools/invoke", { tool: "sessions_list", sessionKey: key }],
      ["POST", "/v1/tools/sessions_history", { sessionKey: key }],
      ["POST", "/mcp", { jsonrpc: "2.0", id: 1, method: "tools/list" }],
      ["GET", "/v1/runs/5d0c3a59-0d7e-4b52-a1f4-8c0f3a6b2e11"],
      ["DELETE", "/v1/grants/5d0c3a59-0d7e-4b52-a1f4-8c0f3a6b2e11"],
    ];
    for (const [method, path, body] of refusals) {
      const answer = await call<AnyError>(method, path, {
        token,
        body,
        headers: { Accept: "application/json, text/event-stream" },
      });
      expect(answer.status, `${method} ${path}`).toBe(403);
      expect(answer.json.error.code ?? answer.json.error.type).toBe("forbidden");
    }
    const elsewhere = await call<ApiError>("POST", "/v1/tools/sessions_list", { token, body: {} });
    expect(elsewhere.json.error.message).toBe(GRANT_REACH);
    const noSend = await call<ApiError>("POST", sessionPath(key, "/messages"), {
      token,
      body: { text: "hi" },
    });
    expect(noSend.json.error.message).toBe('this grant token lacks the "send" scope');
    expect(await tool("sessions_history", key, { sessionKey: key })).toMatchObject({ totalMessages: 2 });
  });

  it("with events: its session's and its runs' streams only; stream: true on a send needs it too", async () => {
    const key = await chatSession();
    const other = await chatSession();
    const { token } = await grantFor(key, ["events"]);
    const stream = await openStream(sessionPath(key, "/events?after=0"), { token });
    expect(stream.status).toBe(200);
    expect((await stream.next()).event).toBe("created");
    await stream.close();
    expect((await openStream(sessionPath(other, "/events"), { token })).status).toBe(403);
    const runId = await sendMessage(key, "stream me", { token: ADMIN });
    const run = await openStream(`/v1/runs/${runId}/events`, { token });
    expect((await run.until((event) => event.event === "run_completed")).at(-1)?.data.runId).toBe(runId);
    const otherRun = await sendMessage(other, "not yours", { token: ADMIN });
    expect((await openStream(`/v1/runs/${otherRun}/events`, { token })).status).toBe(403);
    const send = await grantFor(key, ["send"]);
    const streamed = await call<ApiError>("POST", sessionPath(key, "/messages"), {
      token: send.token,
      body: { text: "typing view", stream: true },
    });
    expect([streamed.status, streamed.json.error.message]).toEqual([
      403,
      'this grant token lacks the "events" scope',
    ]);
  });

  it("with send: chat.send into its session only, and no read", async () => {
    const key = await chatSession();
    const other = await chatSession();
    const { token } = await grantFor(key, ["send"]);
    const sent = await call<{ runId: string; status: string }>("POST", sessionPath(key, "/messages"), {
      token,
      body: { text: "from the widget" },
    });
    expect(sent.status, sent.text).toBe(202);
    expect(sent.json).toEqual({ runId: expect.stringMatching(UUID), status: "accepted" });
    const elsewhere = await call<ApiError>("POST", sessionPath(other, "/messages"), {
      token,
      body: { text: "x" },
    });
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.json.error.message).toBe("a grant token reaches only its own session");
    expect((await call("GET", sessionPath(key), { token })).status).toBe(403);
  });

  it("is 401 like a bad token once revoked or expired; revoking is for its issuer", async () => {
    const key = await chatSession();
    const grant = await grantFor(key, ["read"]);
    expect((await call("GET", sessionPath(key), { token: grant.token })).status).toBe(200);

    const foreign = await call<ApiError>("DELETE", `/v1/grants/${grant.grantId}`, {
      token: AGENT_TOKENS.research,
    });
    expect(foreign.status).toBe(403);
    const revoked = await call("DELETE", `/v1/grants/${grant.grantId}`, { token: AGENT_TOKENS.main });
    expect(revoked.status, revoked.text).toBe(200);
    expect(revoked.json).toEqual({ grantId: grant.grantId, revoked: true });
    const after = await call("GET", sessionPath(key), { token: grant.token });
    expect(after.status).toBe(401);
    expect(after.json).toEqual(UNAUTHORIZED);
    expect((await call("DELETE", `/v1/grants/${crypto.randomUUID()}`, { token: ADMIN })).status).toBe(404);

    // An expired grant, written straight into D1, and a live one with a wrong secret.
    const grantId = crypto.randomUUID();
    const { token, secret } = mintGrantToken(grantId);
    const past = Date.now() - 1000;
    await env.DB.prepare(
      `INSERT INTO grants (grant_id, secret_hash, session_key, agent_id, scopes, created_at, expires_at)
       VALUES (?, ?, ?, 'main', 'read', ?, ?)`,
    )
      .bind(grantId, await hashGrantSecret(secret), key, past - 60_000, past)
      .run();
    const expired = await call("GET", sessionPath(key), { token });
    expect(expired.status).toBe(401);
    expect(expired.json).toEqual(UNAUTHORIZED);
    const live = await grantFor(key, ["read"]);
    const forged = `${live.token.slice(0, -1)}${live.token.endsWith("A") ? "B" : "A"}`;
    expect((await call("GET", sessionPath(key), { token: forged })).json).toEqual(UNAUTHORIZED);
  });
});

describe("GET /v1/sessions/{key}/history", () => {
  it("answers operators and agent tokens as sessions_history does, and 400 for a bad query", async () => {
    const key = await chatSession();
    const page = await call("GET", sessionPath(key, "/history?includeTools=true&offset=1"), {
      token: AGENT_TOKENS.main,
    });
    expect(page.status, page.text).toBe(200);
    expect(page.json).toEqual(
      await tool("sessions_history", key, { sessionKey: key, includeTools: true, offset: 1 }),
    );
    expect((await call("GET", sessionPath(key, "/history"), { token: AGENT_TOKENS.research })).status).toBe(
      403,
    );
    for (const [query, field] of [
      ["limit=0", "limit"],
      ["limit=1001", "limit"],
      ["limit=2.5", "limit"],
      ["offset=-1", "offset"],
      ["includeTools=yes", "includeTools"],
      ["cursor=3", "cursor"],
    ]) {
      const answer = await call<ApiError>("GET", sessionPath(key, `/history?${query}`), { token: ADMIN });
      expect(answer.status, query).toBe(400);
      expect(answer.json.error.message, query).toContain(field);
    }
    expect(
      (await call("GET", sessionPath(`agent:main:none-${uid()}`, "/history"), { token: ADMIN })).status,
    ).toBe(404);
  });
});
