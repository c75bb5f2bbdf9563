import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { app } from "../../src/app";
import { mintRunToken } from "../../src/auth/run-token";
import {
  ADMIN,
  AGENT_TOKENS,
  type AnyError,
  type ApiError,
  call,
  type Invoked,
  type InvokeError,
  runToken,
  type SessionRow,
  type ToolResults,
} from "../support";

const enc = encodeURIComponent;

/** A fresh key suffix, so no two tests share a session. */
const fresh = (prefix: string) => `${prefix}-${crypto.randomUUID().slice(0, 8)}`;

/** Creates a session through the operator API and returns its canonical key. */
async function createdKey(
  agentId: string,
  key: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const created = await call<SessionRow>("POST", "/v1/sessions", {
    token: ADMIN,
    body: { agentId, key, ...extra },
  });
  expect(created.status).toBe(201);
  return created.json.key;
}

/** The real app under another configuration document (the Worker reads it from env). */
async function fetchWithConfig<Body>(
  config: string,
  method: string,
  path: string,
  options: { token: string; body: unknown },
): Promise<{ status: number; json: Body }> {
  const ctx = createExecutionContext();
  const request = new Request(`http://switchboard.test${path}`, {
    method,
    headers: { Authorization: `Bearer ${options.token}`, "Content-Type": "application/json" },
    body: JSON.stringify(options.body),
  });
  const response = await app.fetch(request, { ...env, SWITCHBOARD_CONFIG: config }, ctx);
  await waitOnExecutionContext(ctx);
  return { status: response.status, json: await response.json<Body>() };
}

/** `POST /tools/invoke`; `Body` is the answer expected (`Invoked<tool>` or `InvokeError`). */
const invoke = <Body = Invoked>(token: string | undefined, body: unknown) =>
  call<Body>("POST", "/tools/invoke", { token, body });

describe("missing or bad credentials", () => {
  const routes: [string, string, unknown][] = [
    ["POST", "/tools/invoke", { tool: "sessions_list", sessionKey: "agent:main:main" }],
    ["POST", "/v1/tools/sessions_list", {}],
    ["POST", "/v1/sessions", { agentId: "main" }],
    ["GET", `/v1/sessions/${enc("agent:main:main")}`, undefined],
  ];

  it.each(routes)("%s %s without a token is 401 with no detail", async (method, path, body) => {
    const response = await call<AnyError>(method, path, { body });
    expect(response.status).toBe(401);
    expect(response.json.error).toEqual(
      path === "/tools/invoke"
        ? { type: "unauthorized", message: "unauthorized" }
        : { code: "unauthorized", message: "unauthorized" },
    );
  });

  it.each([
    ["an unknown token", { Authorization: "Bearer not-a-token" }],
    ["another scheme", { Authorization: `Basic ${ADMIN}` }],
    ["a token with a suffix", { Authorization: `Bearer ${ADMIN}x` }],
    ["a forged run token", { Authorization: "Bearer sbr1.eyJhIjoxfQ.c2ln" }],
    ["an empty bearer", { Authorization: "Bearer " }],
  ])("%s is 401 with no detail", async (_name, headers) => {
    const response = await call("POST", "/v1/tools/sessions_list", { headers, body: {} });
    expect(response.status).toBe(401);
    expect(response.json).toEqual({ error: { code: "unauthorized", message: "unauthorized" } });
  });

  it("answers 401 on /tools/invoke in the OpenClaw envelope", async () => {
    const response = await invoke("nope", { tool: "sessions_list", sessionKey: "agent:main:main" });
    expect(response.status).toBe(401);
    expect(response.json).toEqual({ ok: false, error: { type: "unauthorized", message: "unauthorized" } });
  });

  it("checks credentials before the body", async () => {
    const response = await call("POST", "/v1/sessions", { token: "nope", body: "{ not json" });
    expect(response.status).toBe(401);
  });

  it("needs no token for /healthz", async () => {
    const response = await call("GET", "/healthz");
    expect(response.status).toBe(200);
    expect(response.json).toEqual({
      ok: true,
      version: expect.any(String),
      config: "SWITCHBOARD_CONFIG",
      missingSecrets: [],
    });
  });
});

describe("operator token on the tool routes", () => {
  it("must name the requester session", async () => {
    const response = await invoke<InvokeError>(ADMIN, { tool: "sessions_list", args: {} });
    expect(response.status).toBe(400);
    expect(response.json.ok).toBe(false);
    expect(response.json.error.type).toBe("invalid_request");
    expect(response.json.error.message).toMatch(/^sessionKey required/);
    const rest = await call<ApiError>("POST", "/v1/tools/sessions_list", { token: ADMIN, body: {} });
    expect(rest.status).toBe(400);
    expect(rest.json.error.message).toMatch(/^sessionKey required/);
  });

  it("may name it in the X-Switchboard-Session header", async () => {
    const key = await createdKey("main", fresh("cron:hdr"));
    const response = await call<Invoked<"session_status">>("POST", "/tools/invoke", {
      token: ADMIN,
      body: { tool: "session_status" },
      headers: { "X-Switchboard-Session": key },
    });
    expect(response.status).toBe(200);
    expect(response.json.result.details).toMatchObject({ ok: true, sessionKey: key });
  });

  it("rejects a legacy key without agentId", async () => {
    const response = await invoke<InvokeError>(ADMIN, {
      tool: "sessions_list",
      sessionKey: "discord:group:dev",
    });
    expect(response.status).toBe(400);
    expect(response.json.error.message).toContain("agentId");
    const rest = await call<ApiError>("POST", "/v1/tools/sessions_list", {
      token: ADMIN,
      body: {},
      headers: { "X-Switchboard-Session": "main" },
    });
    expect(rest.status).toBe(400);
    expect(rest.json.error.message).toContain("agentId");
  });

  it("accepts a legacy key with agentId, on both routes", async () => {
    const legacy = fresh("discord:group:auth");
    const key = await createdKey("research", legacy);
    expect(key).toBe(`agent:research:${legacy}`);
    const response = await invoke(ADMIN, { tool: "session_status", sessionKey: legacy, agentId: "research" });
    expect(response.status).toBe(200);
    expect(response.json.result.details).toMatchObject({ ok: true, sessionKey: key });
    const rest = await call("POST", "/v1/tools/session_status", {
      token: ADMIN,
      body: {},
      headers: { "X-Switchboard-Session": legacy, "X-Switchboard-Agent": "research" },
    });
    expect(rest.status).toBe(200);
    expect(rest.json).toMatchObject({ ok: true, sessionKey: key });
  });

  it("rejects an agentId that contradicts the key", async () => {
    const key = await createdKey("main", fresh("cron:op"));
    const response = await invoke<InvokeError>(ADMIN, {
      tool: "session_status",
      sessionKey: key,
      agentId: "research",
    });
    expect(response.status).toBe(400);
    expect(response.json.error).toEqual({
      type: "invalid_request",
      message: expect.stringMatching(/^agentId: /),
    });
  });

  it("may not act as an unconfigured agent", async () => {
    const response = await invoke<InvokeError>(ADMIN, {
      tool: "sessions_list",
      sessionKey: "agent:ghost:main",
    });
    expect(response.status).toBe(403);
    expect(response.json.error.message).toContain("ghost");
  });
});

describe("agent tokens on the tool routes", () => {
  it("act as the agent's main session by default", async () => {
    // A unique mainKey gives this test its own main session without touching agent:research:main.
    const mainKey = fresh("home");
    const config = JSON.parse(env.SWITCHBOARD_CONFIG ?? "{}");
    config.session.mainKey = mainKey;
    const created = await fetchWithConfig<SessionRow>(JSON.stringify(config), "POST", "/v1/sessions", {
      token: ADMIN,
      body: { agentId: "research", key: "main" },
    });
    expect(created.status).toBe(201);
    expect(created.json.key).toBe(`agent:research:${mainKey}`);
    const status = await fetchWithConfig<unknown>(
      JSON.stringify(config),
      "POST",
      "/v1/tools/session_status",
      {
        token: AGENT_TOKENS.research,
        body: {},
      },
    );
    expect(status.status).toBe(200);
    expect(status.json).toMatchObject({ ok: true, sessionKey: `agent:research:${mainKey}` });
  });

  it("may act as another session of the same agent", async () => {
    const key = await createdKey("main", fresh("cron:own"));
    const response = await invoke(AGENT_TOKENS.main, { tool: "session_status", sessionKey: key });
    expect(response.status).toBe(200);
    expect(response.json.result.details).toMatchObject({ ok: true, sessionKey: key });
  });

  it("may not act as another agent's session: 403 with the reason", async () => {
    const key = await createdKey("research", fresh("cron:theirs"));
    const response = await invoke(AGENT_TOKENS.main, { tool: "sessions_list", sessionKey: key });
    expect(response.status).toBe(403);
    expect(response.json).toEqual({
      ok: false,
      error: { type: "forbidden", message: expect.stringContaining('agent token for "main"') },
    });
    const rest = await call<ApiError>("POST", "/v1/tools/sessions_list", {
      token: AGENT_TOKENS.main,
      body: {},
      headers: { "X-Switchboard-Session": key },
    });
    expect(rest.status).toBe(403);
    expect(rest.json.error).toEqual({ code: "forbidden", message: expect.stringContaining('"main"') });
  });
});

describe("run tokens", () => {
  it("act as their own session", async () => {
    const key = await createdKey("main", fresh("cron:run"));
    await call("POST", `/v1/sessions/${enc(key)}/transcript`, {
      token: ADMIN,
      body: { messages: [{ id: "m1", role: "user", content: "hello from the run", timestamp: Date.now() }] },
    });
    const token = await runToken({ sessionKey: key });
    const history = await call<ToolResults["sessions_history"]>("POST", "/v1/tools/sessions_history", {
      token,
      body: { sessionKey: "current" },
    });
    expect(history.status).toBe(200);
    expect(history.json.sessionKey).toBe(key);
    expect(history.json.messages).toHaveLength(1);
    const named = await invoke(token, { tool: "session_status", sessionKey: key });
    expect(named.status).toBe(200);
    expect(named.json.result.details).toMatchObject({ ok: true, sessionKey: key });
    const current = await call("POST", "/v1/tools/session_status", {
      token,
      body: {},
      headers: { "X-Switchboard-Session": "current" },
    });
    expect(current.status).toBe(200);
    expect(current.json).toMatchObject({ ok: true, sessionKey: key });
  });

  it("may not name another requester: 403 with the reason", async () => {
    const key = await createdKey("main", fresh("cron:run"));
    const token = await runToken({ sessionKey: key });
    const response = await invoke<InvokeError>(token, {
      tool: "session_status",
      sessionKey: "agent:main:main",
    });
    expect(response.status).toBe(403);
    expect(response.json.error).toEqual({ type: "forbidden", message: expect.stringContaining("run token") });
    const rest = await call("POST", "/v1/tools/session_status", {
      token,
      body: {},
      headers: { "X-Switchboard-Session": "main" },
    });
    expect(rest.status).toBe(403);
  });

  it("are refused once expired: 401", async () => {
    const key = await createdKey("main", fresh("cron:run"));
    const token = await runToken({ sessionKey: key, exp: Math.floor(Date.now() / 1000) - 1 });
    const response = await call("POST", "/v1/tools/session_status", { token, body: {} });
    expect(response.status).toBe(401);
    expect(response.json).toEqual({ error: { code: "unauthorized", message: "unauthorized" } });
  });

  it("signed with another key are refused: 401", async () => {
    const token = await mintRunToken("some-other-signing-key-0123456789", {
      agentId: "main",
      sessionKey: "agent:main:main",
      runId: "r",
      depth: 0,
      sandboxed: false,
      exp: Math.floor(Date.now() / 1000) + 600,
    });
    expect((await call("POST", "/v1/tools/session_status", { token, body: {} })).status).toBe(401);
  });

  it("may not use the sessions API: 403", async () => {
    const key = await createdKey("main", fresh("cron:run"));
    const token = await runToken({ sessionKey: key });
    const requests: [string, string, unknown][] = [
      ["POST", "/v1/sessions", { agentId: "main" }],
      ["GET", `/v1/sessions/${enc(key)}`, undefined],
      ["PATCH", `/v1/sessions/${enc(key)}`, { label: "x" }],
      ["DELETE", `/v1/sessions/${enc(key)}`, undefined],
      ["GET", `/v1/sessions/${enc(key)}/transcript.jsonl`, undefined],
    ];
    for (const [method, path, body] of requests) {
      const response = await call<ApiError>(method, path, { token, body });
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(response.json.error.code).toBe("forbidden");
      expect(response.json.error.message).toContain("run token");
    }
    expect((await call("GET", `/v1/sessions/${enc(key)}`, { token: ADMIN })).status).toBe(200);
  });

  it("carry depth, so a sub-agent run gets the sub-agent tool policy", async () => {
    const key = await createdKey("main", fresh("cron:run"));
    const token = await runToken({ sessionKey: key, depth: 1 });
    const response = await invoke(token, { tool: "sessions_list" });
    expect(response.status).toBe(404);
  });

  it("carry the sandbox flag, so a sandboxed run is clamped to tree", async () => {
    const key = await createdKey("main", fresh("cron:run"));
    const sibling = await createdKey("main", fresh("cron:sibling"));
    const unsandboxed = await runToken({ sessionKey: key });
    const sandboxed = await runToken({ sessionKey: key, sandboxed: true });
    // tree is the default visibility: a sibling is forbidden either way, with the same reason.
    for (const token of [unsandboxed, sandboxed]) {
      const response = await invoke(token, { tool: "sessions_history", args: { sessionKey: sibling } });
      expect(response.status).toBe(200);
      expect(response.json.result.details.status).toBe("forbidden");
    }
  });
});

describe("the sessions API with agent tokens", () => {
  it("creates sessions of the token's own agent", async () => {
    const legacy = fresh("discord:group:mine");
    const created = await call("POST", "/v1/sessions", {
      token: AGENT_TOKENS.research,
      body: { key: legacy },
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ key: `agent:research:${legacy}`, agentId: "research" });
    const implicit = await call<SessionRow>("POST", "/v1/sessions", {
      token: AGENT_TOKENS.research,
      body: {},
    });
    expect(implicit.status).toBe(201);
    expect(implicit.json.agentId).toBe("research");
    const named = await call("POST", "/v1/sessions", {
      token: AGENT_TOKENS.research,
      body: { agentId: "research", key: fresh("cron:mine") },
    });
    expect(named.status).toBe(201);
  });

  it("may not create another agent's session", async () => {
    const byAgentId = await call<ApiError>("POST", "/v1/sessions", {
      token: AGENT_TOKENS.research,
      body: { agentId: "main", key: fresh("cron:theirs") },
    });
    expect(byAgentId.status).toBe(403);
    expect(byAgentId.json.error.message).toContain('"research"');
    const key = `agent:main:${fresh("cron:theirs")}`;
    const byKey = await call<ApiError>("POST", "/v1/sessions", {
      token: AGENT_TOKENS.research,
      body: { key },
    });
    expect(byKey.status).toBe(403);
    expect(byKey.json.error.code).toBe("forbidden");
    expect((await call("GET", `/v1/sessions/${enc(key)}`, { token: ADMIN })).status).toBe(404);
  });

  it("reads, patches, imports into, exports and deletes only its own agent's sessions", async () => {
    const mine = await createdKey("research", fresh("cron:mine"));
    const theirs = await createdKey("main", fresh("cron:theirs"));
    const token = AGENT_TOKENS.research;
    const message = { id: "m1", role: "user", content: "hi", timestamp: Date.now() };
    const requests = (key: string): [string, string, unknown][] => [
      ["GET", `/v1/sessions/${enc(key)}`, undefined],
      ["PATCH", `/v1/sessions/${enc(key)}`, { label: fresh("label") }],
      ["POST", `/v1/sessions/${enc(key)}/transcript`, { messages: [message] }],
      ["GET", `/v1/sessions/${enc(key)}/transcript.jsonl`, undefined],
    ];
    for (const [method, path, body] of requests(theirs)) {
      const response = await call<ApiError>(method, path, { token, body });
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(response.json.error.message).toContain('"research"');
    }
    for (const [method, path, body] of requests(mine)) {
      expect((await call(method, path, { token, body })).status, `${method} ${path}`).toBe(200);
    }
    expect((await call("DELETE", `/v1/sessions/${enc(theirs)}`, { token })).status).toBe(403);
    expect((await call("GET", `/v1/sessions/${enc(theirs)}`, { token: ADMIN })).status).toBe(200);
    expect((await call("DELETE", `/v1/sessions/${enc(mine)}`, { token })).status).toBe(200);
    // Nothing of theirs changed.
    const exported = await call("GET", `/v1/sessions/${enc(theirs)}/transcript.jsonl`, { token: ADMIN });
    expect(exported.text).toBe("");
  });

  it("reads a legacy key in a path as its own agent's", async () => {
    const legacy = fresh("cron:legacy");
    await createdKey("ops", legacy);
    const response = await call<SessionRow>("GET", `/v1/sessions/${enc(legacy)}`, {
      token: AGENT_TOKENS.ops,
    });
    expect(response.status).toBe(200);
    expect(response.json.key).toBe(`agent:ops:${legacy}`);
  });
});

describe("tool availability", () => {
  it("answers 404 for a tool outside the caller's profile (ops: messaging)", async () => {
    const response = await invoke(AGENT_TOKENS.ops, { tool: "agents_list" });
    expect(response.status).toBe(404);
    expect(response.json).toEqual({
      ok: false,
      error: { type: "not_found", message: expect.stringContaining("agents_list") },
    });
    const rest = await call<ApiError>("POST", "/v1/tools/agents_list", { token: AGENT_TOKENS.ops, body: {} });
    expect(rest.status).toBe(404);
    expect(rest.json.error).toEqual({
      code: "tool_not_found",
      message: expect.stringContaining("agents_list"),
    });
    expect((await invoke(AGENT_TOKENS.main, { tool: "agents_list" })).status).toBe(200);
  });

  it("answers 404 for an operator acting as a session whose profile lacks the tool", async () => {
    const key = await createdKey("ops", fresh("cron:ops"));
    const response = await invoke(ADMIN, { tool: "agents_list", sessionKey: key });
    expect(response.status).toBe(404);
  });

  it("answers 404 for an unknown tool on both routes", async () => {
    const response = await invoke(AGENT_TOKENS.main, { tool: "sessions_teleport" });
    expect(response.status).toBe(404);
    expect(response.json).toEqual({
      ok: false,
      error: { type: "not_found", message: expect.stringContaining("sessions_teleport") },
    });
    for (const name of ["sessions_teleport", "__proto__", "constructor", "toString"]) {
      const rest = await call<ApiError>("POST", `/v1/tools/${name}`, { token: AGENT_TOKENS.main, body: {} });
      expect(rest.status, name).toBe(404);
      expect(rest.json.error.code, name).toBe("tool_not_found");
    }
  });

  it("accepts `name` as well as `tool` on /tools/invoke", async () => {
    const response = await invoke<Invoked<"agents_list">>(AGENT_TOKENS.main, { name: "agents_list" });
    expect(response.status).toBe(200);
    expect(response.json.result.details.requester).toBe("main");
  });
});

describe("result shapes", () => {
  it("wraps details in the /tools/invoke envelope", async () => {
    const response = await invoke<Invoked<"agents_list">>(AGENT_TOKENS.main, {
      tool: "agents_list",
      args: {},
    });
    expect(response.status).toBe(200);
    expect(Object.keys(response.json).sort()).toEqual(["ok", "result"]);
    expect(response.json.ok).toBe(true);
    const { content, details } = response.json.result;
    expect(Object.keys(response.json.result).sort()).toEqual(["content", "details"]);
    expect(content).toEqual([{ type: "text", text: expect.any(String) }]);
    expect(JSON.parse(content[0]?.text ?? "")).toEqual(details);
    expect(details.agents.map((agent: { id: string }) => agent.id)).toEqual(["main", "research", "ops"]);
  });

  it("answers /v1/tools/{name} with the details directly", async () => {
    const envelope = await invoke(AGENT_TOKENS.main, { tool: "agents_list" });
    const rest = await call("POST", "/v1/tools/agents_list", { token: AGENT_TOKENS.main });
    expect(rest.status).toBe(200);
    expect(rest.json).toEqual(envelope.json.result.details);
  });

  it("uses the error envelope for input errors", async () => {
    const response = await invoke(AGENT_TOKENS.main, { tool: "sessions_history", args: {} });
    expect(response.status).toBe(400);
    expect(response.json).toEqual({
      ok: false,
      error: { type: "tool_error", message: "sessionKey required" },
    });
  });

  it("answers forbidden results with HTTP 200 on both routes", async () => {
    const target = await createdKey("research", fresh("cron:private"));
    const response = await invoke(AGENT_TOKENS.main, {
      tool: "sessions_history",
      args: { sessionKey: target },
    });
    expect(response.status).toBe(200);
    expect(response.json.ok).toBe(true);
    expect(response.json.result.details).toEqual({
      status: "forbidden",
      error: expect.stringContaining("tools.sessions.visibility"),
    });
    const rest = await call("POST", "/v1/tools/sessions_history", {
      token: AGENT_TOKENS.main,
      body: { sessionKey: target },
    });
    expect(rest.status).toBe(200);
    expect(rest.json).toEqual(response.json.result.details);
  });

  it("answers error results with HTTP 200 on both routes", async () => {
    const missing = `agent:main:${fresh("cron:missing")}`;
    const response = await invoke(AGENT_TOKENS.main, {
      tool: "sessions_history",
      args: { sessionKey: missing },
    });
    expect(response.status).toBe(200);
    expect(response.json.result.details).toEqual({
      status: "error",
      error: expect.stringContaining(missing),
    });
    const rest = await call<ToolResults["session_status"]>("POST", "/v1/tools/session_status", {
      token: AGENT_TOKENS.main,
      body: { sessionKey: missing },
    });
    expect(rest.status).toBe(200);
    expect(rest.json.status).toBe("error");
  });
});
