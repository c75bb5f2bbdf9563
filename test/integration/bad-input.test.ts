import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { app } from "../../src/app";
import {
  ADMIN,
  AGENT_TOKENS,
  type AnyError,
  type ApiError,
  call,
  type HttpResult,
  type ImportReceipt,
  type InvokeError,
  type SessionRow,
  type ToolResults,
} from "../support";

const enc = encodeURIComponent;
const MAX_BODY = 2 * 1024 * 1024;
const MAX_TEXT = 256 * 1024;

/** A fresh session key, so no two tests share a session. */
const freshKey = (agentId = "main") => `agent:${agentId}:cron:bad-${crypto.randomUUID().slice(0, 8)}`;

async function createFresh(key = freshKey()): Promise<string> {
  const created = await call("POST", "/v1/sessions", { token: ADMIN, body: { key } });
  expect(created.status).toBe(201);
  return key;
}

const message = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  role: "user",
  content: `text of ${id}`,
  timestamp: 1_700_000_000_000,
  ...extra,
});

/** Asserts a 4xx REST error whose message names the field. */
function expectError(response: HttpResult<ApiError>, status: number, field: string | RegExp) {
  expect(response.status).toBe(status);
  expect(Object.keys(response.json)).toEqual(["error"]);
  expect(typeof response.json.error.code).toBe("string");
  if (typeof field === "string") expect(response.json.error.message).toContain(field);
  else expect(response.json.error.message).toMatch(field);
}

/** Asserts a /tools/invoke error envelope whose message names the field. */
function expectInvokeError(response: HttpResult<InvokeError>, status: number, field: string | RegExp) {
  expect(response.status).toBe(status);
  expect(response.json.ok).toBe(false);
  expect(Object.keys(response.json.error).sort()).toEqual(["message", "type"]);
  if (typeof field === "string") expect(response.json.error.message).toContain(field);
  else expect(response.json.error.message).toMatch(field);
}

describe("malformed JSON", () => {
  it("is a 400 invalid_json on every route that takes a body", async () => {
    const key = await createFresh();
    for (const [method, path] of [
      ["POST", "/v1/sessions"],
      ["PATCH", `/v1/sessions/${enc(key)}`],
      ["POST", `/v1/sessions/${enc(key)}/transcript`],
      ["POST", "/v1/tools/sessions_list"],
    ] as const) {
      const response = await call<ApiError>(method, path, {
        token: AGENT_TOKENS.main,
        body: '{"label": "x",',
      });
      expect(response.status, `${method} ${path}`).toBe(400);
      expect(response.json.error).toEqual({ code: "invalid_json", message: expect.stringContaining("JSON") });
    }
    const invoke = await call("POST", "/tools/invoke", {
      token: AGENT_TOKENS.main,
      body: "{tool: sessions_list}",
    });
    expect(invoke.status).toBe(400);
    expect(invoke.json).toEqual({
      ok: false,
      error: { type: "invalid_request", message: expect.stringContaining("JSON") },
    });
  });

  it("rejects a JSON body that is not an object, naming the body", async () => {
    for (const body of ["[]", "null", "42", '"text"']) {
      expectError(await call("POST", "/v1/sessions", { token: ADMIN, body }), 400, "body");
      expectInvokeError(await call("POST", "/tools/invoke", { token: ADMIN, body }), 400, "body");
    }
  });

  it("leaves the session untouched", async () => {
    const key = await createFresh();
    await call("PATCH", `/v1/sessions/${enc(key)}`, { token: ADMIN, body: '{"label": "broken' });
    const row = await call<SessionRow>("GET", `/v1/sessions/${enc(key)}`, { token: ADMIN });
    expect(row.json.label).toBeUndefined();
  });
});

describe("wrong types name the field", () => {
  it.each([
    [{ agentId: 5 }, "agentId"],
    [{ agentId: "main", key: ["x"] }, "key"],
    [{ agentId: "main", label: 5 }, "label"],
    [{ agentId: "main", displayName: true }, "displayName"],
    [{ agentId: "main", chatType: "dm" }, "chatType"],
    [{ agentId: "main", channel: "Not A Channel" }, "channel"],
    [{ agentId: "main", deliveryContext: "discord" }, "deliveryContext"],
    [{ agentId: "main", deliveryContext: { channel: "discord" } }, "deliveryContext.to"],
    [
      { agentId: "main", deliveryContext: { channel: "discord", to: "x", threadId: [] } },
      "deliveryContext.threadId",
    ],
  ])("create %j → %s", async (body, field) => {
    expectError(await call("POST", "/v1/sessions", { token: ADMIN, body }), 400, new RegExp(`^${field}[: ]`));
  });

  it.each([
    [{ label: 5 }, "label"],
    [{ displayName: 5 }, "displayName"],
    [{ sendPolicy: "maybe" }, "sendPolicy"],
    [{ sendPolicy: true }, "sendPolicy"],
    [{ model: 5 }, "model"],
    [{ model: "no/such-model" }, "model"],
    [{ thinkingLevel: 3 }, "thinkingLevel"],
    [{ thinkingLevel: "x".repeat(33) }, "thinkingLevel"],
  ])("patch %j → %s", async (body, field) => {
    const key = await createFresh();
    expectError(
      await call("PATCH", `/v1/sessions/${enc(key)}`, { token: ADMIN, body }),
      400,
      new RegExp(`^${field}[: ]`),
    );
  });

  it.each([
    [{ messages: "hello" }, "messages"],
    [{ messages: [message("a", { id: 5 })] }, "messages.0.id"],
    [{ messages: [message("a", { id: "" })] }, "messages.0.id"],
    [{ messages: [message("a", { timestamp: "now" })] }, "messages.0.timestamp"],
    [{ messages: [message("a", { timestamp: -1 })] }, "messages.0.timestamp"],
    [{ messages: [message("a", { timestamp: 1.5 })] }, "messages.0.timestamp"],
    [{ messages: [message("a", { content: 5 })] }, "messages.0.content"],
    [{ messages: [message("a", { content: [{ type: "video", url: "x" }] })] }, "messages.0.content"],
    [{ messages: [message("a", { content: [{ type: "text", text: 5 }] })] }, "messages.0.content"],
    [{ messages: [message("a", { content: [{ type: "toolCall" }] })] }, "messages.0.content"],
    [{ messages: [message("a", { provenance: { kind: "martian" } })] }, "messages.0.provenance.kind"],
    [{ messages: [message("a"), message("b", { runId: 7 })] }, "messages.1.runId"],
  ])("import %j → %s", async (body, field) => {
    const key = await createFresh();
    const response = await call<ApiError>("POST", `/v1/sessions/${enc(key)}/transcript`, {
      token: ADMIN,
      body,
    });
    expectError(response, 400, new RegExp(`^${field.replaceAll(".", "\\.")}[.: ]`));
  });

  it("names the tool param on both tool routes", async () => {
    const key = await createFresh();
    const rest = await call<ApiError>("POST", "/v1/tools/sessions_history", {
      token: AGENT_TOKENS.main,
      body: { sessionKey: key, limit: "5" },
    });
    expectError(rest, 400, /^limit: /);
    const invoke = await call<InvokeError>("POST", "/tools/invoke", {
      token: AGENT_TOKENS.main,
      body: { tool: "sessions_list", args: { kinds: "main" } },
    });
    expectInvokeError(invoke, 400, /^kinds: /);
    const includeTools = await call<InvokeError>("POST", "/tools/invoke", {
      token: AGENT_TOKENS.main,
      body: { tool: "sessions_history", args: { session_key: key, include_tools: "yes" } },
    });
    expectInvokeError(includeTools, 400, /^includeTools: /);
  });

  it("names the field of the /tools/invoke body", async () => {
    expectInvokeError(
      await call("POST", "/tools/invoke", { token: ADMIN, body: { tool: 5 } }),
      400,
      /^tool: /,
    );
    expectInvokeError(
      await call("POST", "/tools/invoke", {
        token: AGENT_TOKENS.main,
        body: { tool: "sessions_list", args: "x" },
      }),
      400,
      /^args /,
    );
    expectInvokeError(
      await call("POST", "/tools/invoke", { token: ADMIN, body: { tool: "sessions_list", sessionKey: 5 } }),
      400,
      /^sessionKey: /,
    );
  });
});

describe("missing required fields", () => {
  it("sessionKey required, on both tool routes", async () => {
    const rest = await call("POST", "/v1/tools/sessions_history", { token: AGENT_TOKENS.main, body: {} });
    expect(rest.status).toBe(400);
    expect(rest.json).toEqual({ error: { code: "bad_request", message: "sessionKey required" } });
    const blank = await call<ApiError>("POST", "/v1/tools/sessions_history", {
      token: AGENT_TOKENS.main,
      body: { session_key: "  " },
    });
    expect(blank.json.error.message).toBe("sessionKey required");
    const invoke = await call("POST", "/tools/invoke", {
      token: AGENT_TOKENS.main,
      body: { tool: "sessions_history", args: { sessionKey: "" } },
    });
    expect(invoke.status).toBe(400);
    expect(invoke.json).toEqual({
      ok: false,
      error: { type: "tool_error", message: "sessionKey required" },
    });
  });

  it("tool required on /tools/invoke", async () => {
    const response = await call("POST", "/tools/invoke", { token: AGENT_TOKENS.main, body: { args: {} } });
    expect(response.status).toBe(400);
    expect(response.json).toEqual({
      ok: false,
      error: { type: "invalid_request", message: "tool required" },
    });
    const empty = await call<InvokeError>("POST", "/tools/invoke", { token: AGENT_TOKENS.main });
    expect(empty.json.error.message).toBe("tool required");
  });

  it("agentId required when an operator creates a session without a key", async () => {
    expectError(await call("POST", "/v1/sessions", { token: ADMIN, body: {} }), 400, /^agentId required/);
    expectError(await call("POST", "/v1/sessions", { token: ADMIN }), 400, /^agentId required/);
  });

  it("messages and their fields required on import", async () => {
    const key = await createFresh();
    const path = `/v1/sessions/${enc(key)}/transcript`;
    expectError(await call("POST", path, { token: ADMIN, body: {} }), 400, /^messages required/);
    const { id: _id, ...noId } = message("a");
    expectError(
      await call("POST", path, { token: ADMIN, body: { messages: [noId] } }),
      400,
      /^messages\.0\.id required/,
    );
    const { timestamp: _timestamp, ...noTimestamp } = message("a");
    expectError(
      await call("POST", path, { token: ADMIN, body: { messages: [message("a"), noTimestamp] } }),
      400,
      /^messages\.1\.timestamp required/,
    );
    const { content: _content, ...noContent } = message("a");
    expectError(
      await call("POST", path, { token: ADMIN, body: { messages: [noContent] } }),
      400,
      /^messages\.0\.content required/,
    );
    const { role: _role, ...noRole } = message("a");
    expectError(
      await call("POST", path, { token: ADMIN, body: { messages: [noRole] } }),
      400,
      /^messages\.0\.role required/,
    );
  });
});

describe("unknown fields on closed bodies", () => {
  it("are rejected on create, naming the field", async () => {
    const key = freshKey();
    expectError(
      await call("POST", "/v1/sessions", { token: ADMIN, body: { key, sessionId: "mine" } }),
      400,
      "unknown field sessionId",
    );
    expectError(
      await call("POST", "/v1/sessions", {
        token: ADMIN,
        body: { key, deliveryContext: { channel: "discord", to: "x", extra: 1 } },
      }),
      400,
      "unknown field deliveryContext.extra",
    );
    expect((await call("GET", `/v1/sessions/${enc(key)}`, { token: ADMIN })).status).toBe(404);
  });

  it("are rejected on patch, naming the field", async () => {
    const key = await createFresh();
    expectError(
      await call("PATCH", `/v1/sessions/${enc(key)}`, {
        token: ADMIN,
        body: { label: "ok", spawnedBy: "x" },
      }),
      400,
      "unknown field spawnedBy",
    );
    expect(
      (await call<SessionRow>("GET", `/v1/sessions/${enc(key)}`, { token: ADMIN })).json.label,
    ).toBeUndefined();
  });

  it("are rejected on import, naming the field", async () => {
    const key = await createFresh();
    expectError(
      await call("POST", `/v1/sessions/${enc(key)}/transcript`, {
        token: ADMIN,
        body: { messages: [message("a")], replace: true },
      }),
      400,
      "unknown field replace",
    );
  });

  it("are kept on imported messages, which are open", async () => {
    const key = await createFresh();
    const imported = message("a", { custom: { kept: true } });
    const response = await call("POST", `/v1/sessions/${enc(key)}/transcript`, {
      token: ADMIN,
      body: { messages: [imported] },
    });
    expect(response.status).toBe(200);
    const exported = await call("GET", `/v1/sessions/${enc(key)}/transcript.jsonl`, { token: ADMIN });
    expect(JSON.parse(exported.text.trim())).toEqual(imported);
  });
});

describe("size limits", () => {
  it("answers 413 for a body over 2 MB on every route", async () => {
    const key = await createFresh();
    const body = JSON.stringify({ label: "x".repeat(MAX_BODY) });
    for (const [method, path] of [
      ["POST", "/v1/sessions"],
      ["PATCH", `/v1/sessions/${enc(key)}`],
      ["POST", `/v1/sessions/${enc(key)}/transcript`],
      ["POST", "/v1/tools/sessions_list"],
    ] as const) {
      const response = await call<ApiError>(method, path, { token: ADMIN, body });
      expect(response.status, `${method} ${path}`).toBe(413);
      expect(response.json.error.code).toBe("payload_too_large");
      expect(response.json.error.message).toContain("body");
    }
    const invoke = await call("POST", "/tools/invoke", { token: ADMIN, body });
    expect(invoke.status).toBe(413);
    expect(invoke.json).toEqual({
      ok: false,
      error: { type: "payload_too_large", message: expect.any(String) },
    });
  });

  it("answers 413 for a streamed body over 2 MB without Content-Length", async () => {
    const key = await createFresh();
    const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent > MAX_BODY) return controller.close();
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const response = await exports.default.fetch(
      `http://switchboard.test/v1/sessions/${enc(key)}/transcript`,
      {
        method: "POST",
        headers: { Authorization: `Bearer ${ADMIN}`, "Content-Type": "application/json" },
        body: stream,
      },
    );
    expect(response.status).toBe(413);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("payload_too_large");
  });

  it("accepts a body just under 2 MB", async () => {
    const key = await createFresh();
    // Trailing whitespace is valid JSON: the body is just under the limit.
    const body = JSON.stringify({ messages: [message("a")] }).padEnd(MAX_BODY - 16, " ");
    const response = await call<ImportReceipt>("POST", `/v1/sessions/${enc(key)}/transcript`, {
      token: ADMIN,
      body,
    });
    expect(response.status).toBe(200);
    expect(response.json.imported).toBe(1);
  });

  it("limits label and displayName to 512 chars", async () => {
    const longLabel = "l".repeat(513);
    expectError(
      await call("POST", "/v1/sessions", { token: ADMIN, body: { key: freshKey(), label: longLabel } }),
      400,
      /^label: /,
    );
    expectError(
      await call("POST", "/v1/sessions", { token: ADMIN, body: { key: freshKey(), displayName: longLabel } }),
      400,
      /^displayName: /,
    );
    const key = await createFresh();
    expectError(
      await call("PATCH", `/v1/sessions/${enc(key)}`, { token: ADMIN, body: { label: longLabel } }),
      400,
      /^label: /,
    );
    const atLimit = await call<SessionRow>("PATCH", `/v1/sessions/${enc(key)}`, {
      token: ADMIN,
      body: { label: "l".repeat(512) },
    });
    expect(atLimit.status).toBe(200);
    expect(atLimit.json.label).toHaveLength(512);
  });

  it("limits message text to 256 KiB, as string content and as a text block", async () => {
    const key = await createFresh();
    const path = `/v1/sessions/${enc(key)}/transcript`;
    const tooLong = "t".repeat(MAX_TEXT + 1);
    expectError(
      await call("POST", path, { token: ADMIN, body: { messages: [message("a", { content: tooLong })] } }),
      400,
      /^messages\.0\.content: /,
    );
    expectError(
      await call("POST", path, {
        token: ADMIN,
        body: { messages: [message("a"), message("b", { content: [{ type: "text", text: tooLong }] })] },
      }),
      400,
      /^messages\.1\.content\.0\.text: /,
    );
    // The limit is in UTF-8 bytes: 131,073 two-byte characters are over it.
    expectError(
      await call("POST", path, {
        token: ADMIN,
        body: { messages: [message("a", { content: "é".repeat(MAX_TEXT / 2 + 1) })] },
      }),
      400,
      /^messages\.0\.content: .*bytes/,
    );
    const atLimit = await call("POST", path, {
      token: ADMIN,
      body: { messages: [message("c", { content: "t".repeat(MAX_TEXT) })] },
    });
    expect(atLimit.status).toBe(200);
    expect(atLimit.json).toEqual({ imported: 1, skipped: 0, totalMessages: 1 });
  });

  it("limits a transcript row to 1 MiB", async () => {
    const key = await createFresh();
    const blocks = Array.from({ length: 5 }, () => ({ type: "text", text: "r".repeat(250_000) }));
    const response = await call<ApiError>("POST", `/v1/sessions/${enc(key)}/transcript`, {
      token: ADMIN,
      body: { messages: [message("a"), message("big", { content: blocks })] },
    });
    expectError(response, 400, /^messages\.1: .*1048576 bytes/);
    const total = await call<ToolResults["sessions_history"]>("POST", "/v1/tools/sessions_history", {
      token: ADMIN,
      body: { sessionKey: key },
      headers: { "X-Switchboard-Session": key },
    });
    expect(total.json.totalMessages).toBe(0);
  });
});

describe("invalid messages", () => {
  it("rejects an unknown role, naming it", async () => {
    const key = await createFresh();
    const response = await call<ApiError>("POST", `/v1/sessions/${enc(key)}/transcript`, {
      token: ADMIN,
      body: { messages: [message("a", { role: "bot" })] },
    });
    expectError(response, 400, /^messages\.0\.role: /);
  });

  it("rejects an empty messages array", async () => {
    const key = await createFresh();
    const response = await call<ApiError>("POST", `/v1/sessions/${enc(key)}/transcript`, {
      token: ADMIN,
      body: { messages: [] },
    });
    expectError(response, 400, /^messages must not be empty/);
  });

  it("writes nothing of a batch whose third message is invalid", async () => {
    const key = await createFresh();
    const path = `/v1/sessions/${enc(key)}/transcript`;
    const first = await call("POST", path, { token: ADMIN, body: { messages: [message("existing")] } });
    expect(first.json).toEqual({ imported: 1, skipped: 0, totalMessages: 1 });
    const before = await call<SessionRow>("GET", `/v1/sessions/${enc(key)}`, { token: ADMIN });
    const batch = [
      message("n1"),
      message("n2", { role: "assistant" }),
      message("n3", { role: "narrator" }),
      message("n4"),
    ];
    const rejected = await call<ApiError>("POST", path, { token: ADMIN, body: { messages: batch } });
    expectError(rejected, 400, /^messages\.2\.role: /);

    const exported = await call("GET", `/v1/sessions/${enc(key)}/transcript.jsonl`, { token: ADMIN });
    expect(
      exported.text
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line).id),
    ).toEqual(["existing"]);
    const own = await call<ToolResults["sessions_history"]>("POST", "/v1/tools/sessions_history", {
      token: AGENT_TOKENS.main,
      body: { sessionKey: "current" },
      headers: { "X-Switchboard-Session": key },
    });
    expect(own.json.totalMessages).toBe(1);
    expect(own.json.messages.map((m: { id: string }) => m.id)).toEqual(["existing"]);
    const after = await call<SessionRow>("GET", `/v1/sessions/${enc(key)}`, { token: ADMIN });
    expect(after.json.updatedAt).toBe(before.json.updatedAt);

    // The same batch, fixed, imports all four: the rejection left no trace that would skip them.
    batch[2] = message("n3", { role: "assistant" });
    const fixed = await call("POST", path, { token: ADMIN, body: { messages: batch } });
    expect(fixed.json).toEqual({ imported: 4, skipped: 0, totalMessages: 5 });
  });

  it("writes nothing of a batch whose third message is over the row limit", async () => {
    const key = await createFresh();
    const huge = Array.from({ length: 5 }, () => ({ type: "text", text: "h".repeat(250_000) }));
    const response = await call<ApiError>("POST", `/v1/sessions/${enc(key)}/transcript`, {
      token: ADMIN,
      body: { messages: [message("a"), message("b"), message("c", { content: huge })] },
    });
    expectError(response, 400, /^messages\.2: /);
    const exported = await call("GET", `/v1/sessions/${enc(key)}/transcript.jsonl`, { token: ADMIN });
    expect(exported.status).toBe(200);
    expect(exported.text).toBe("");
  });
});

describe("unknown routes", () => {
  it("answer 404 JSON", async () => {
    const bare = await call("GET", "/nope");
    expect(bare.status).toBe(404);
    expect(bare.json).toEqual({ error: { code: "not_found", message: expect.stringContaining("/nope") } });
    for (const [method, path] of [
      ["GET", "/v1/nope"],
      ["GET", "/v1/sessions"],
      ["PUT", `/v1/sessions/${enc(freshKey())}`],
      ["POST", `/v1/sessions/${enc(freshKey())}/nope`],
    ] as const) {
      const response = await call<ApiError>(method, path, { token: ADMIN });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.json.error.code).toBe("not_found");
    }
  });

  it("answer 404 for a session that does not exist", async () => {
    const key = freshKey();
    for (const [method, path, body] of [
      ["GET", `/v1/sessions/${enc(key)}`, undefined],
      ["PATCH", `/v1/sessions/${enc(key)}`, { label: "x" }],
      ["DELETE", `/v1/sessions/${enc(key)}`, undefined],
      ["POST", `/v1/sessions/${enc(key)}/transcript`, { messages: [message("a")] }],
      ["GET", `/v1/sessions/${enc(key)}/transcript.jsonl`, undefined],
    ] as const) {
      const response = await call<ApiError>(method, path, { token: ADMIN, body });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.json.error.code).toBe("not_found");
    }
  });

  it("answer 400 for a key that is not a key", async () => {
    expectError(await call("GET", `/v1/sessions/${enc("agent::")}`, { token: ADMIN }), 400, /^key: /);
    expectError(await call("GET", `/v1/sessions/${enc("discord:group:x")}`, { token: ADMIN }), 400, /^key: /);
    expectError(
      await call("POST", "/v1/sessions", { token: ADMIN, body: { agentId: "main", key: "global" } }),
      400,
      /^key: /,
    );
    expectError(
      await call("POST", "/v1/sessions", { token: ADMIN, body: { agentId: "ghost" } }),
      400,
      /^agentId: /,
    );
  });
});

/** The real app with another configuration document, the way a deploy with a bad secret would run. */
async function fetchWithConfig(
  config: string | undefined,
  path: string,
  init: RequestInit & { token?: string } = {},
): Promise<{ status: number; json: AnyError }> {
  const headers = new Headers(init.headers);
  if (init.token) headers.set("Authorization", `Bearer ${init.token}`);
  const ctx = createExecutionContext();
  const response = await app.fetch(
    new Request(`http://switchboard.test${path}`, { ...init, headers }),
    { ...env, SWITCHBOARD_CONFIG: config },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return { status: response.status, json: await response.json<AnyError>() };
}

describe("invalid configuration", () => {
  const badRange = JSON.stringify({ agents: { defaults: { subagents: { maxSpawnDepth: 9 } } } });
  const duplicate = JSON.stringify({ agents: { list: [{ id: "main" }, { id: "main" }] } });

  const requests: [string, RequestInit & { token?: string }][] = [
    [
      "/tools/invoke",
      {
        method: "POST",
        token: ADMIN,
        body: JSON.stringify({ tool: "sessions_list", sessionKey: "agent:main:main" }),
      },
    ],
    ["/v1/tools/sessions_list", { method: "POST", token: AGENT_TOKENS.main, body: "{}" }],
    ["/v1/sessions", { method: "POST", token: ADMIN, body: JSON.stringify({ agentId: "main" }) }],
    [`/v1/sessions/${enc("agent:main:main")}`, { method: "GET", token: ADMIN }],
    ["/v1/sessions", { method: "POST", body: "{}" }],
    ["/nope", { method: "GET" }],
  ];

  it.each(requests)("answers %s with 500 config_invalid naming the bad path", async (path, init) => {
    const response = await fetchWithConfig(badRange, path, init);
    expect(response.status).toBe(500);
    const error =
      path === "/tools/invoke"
        ? { code: response.json.error.type, message: response.json.error.message }
        : response.json.error;
    expect(error.code).toBe("config_invalid");
    expect(error.message).toContain("agents.defaults.subagents.maxSpawnDepth");
  });

  it("names the duplicate agent id", async () => {
    const response = await fetchWithConfig(duplicate, "/v1/sessions", {
      method: "POST",
      token: ADMIN,
      body: "{}",
    });
    expect(response.status).toBe(500);
    expect(response.json).toEqual({
      error: { code: "config_invalid", message: expect.stringContaining("agents.list[1].id") },
    });
  });

  it("reports invalid JSON", async () => {
    const response = await fetchWithConfig("{ nope", "/v1/sessions", {
      method: "POST",
      token: ADMIN,
      body: "{}",
    });
    expect(response.status).toBe(500);
    expect(response.json.error).toEqual({
      code: "config_invalid",
      message: expect.stringContaining("not valid JSON"),
    });
  });

  it("is reported by /healthz", async () => {
    const response = await fetchWithConfig(badRange, "/healthz");
    expect(response.status).toBe(500);
    expect(response.json).toEqual({
      ok: false,
      version: expect.any(String),
      config: "SWITCHBOARD_CONFIG",
      error: {
        code: "config_invalid",
        message: expect.stringContaining("agents.defaults.subagents.maxSpawnDepth"),
      },
    });
  });

  it("recovers once the document is valid again", async () => {
    expect((await fetchWithConfig(badRange, "/healthz")).status).toBe(500);
    const healthy = await fetchWithConfig(env.SWITCHBOARD_CONFIG, "/healthz");
    expect(healthy).toEqual({
      status: 200,
      json: { ok: true, version: expect.any(String), config: "SWITCHBOARD_CONFIG", missingSecrets: [] },
    });
  });
});
