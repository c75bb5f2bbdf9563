import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/load";
import { ADMIN, AGENT_TOKENS, call } from "../support";
import { type Answer, errorOf } from "../support/wire";

// Inputs that used to come back as a 500 (or -32603 over MCP): each is now a 4xx (or -32602) naming its
// field, and writes nothing.

const enc = encodeURIComponent;
const uid = () => crypto.randomUUID().slice(0, 8);
const MAX_DEPTH = 64;

/** A JSON value nesting objects and arrays `depth` levels deep (an object or array is one level). */
function nested(depth: number): unknown {
  let value: unknown = "leaf";
  for (let level = 0; level < depth; level++) value = level % 2 === 0 ? { a: value } : [value];
  return value;
}

async function createSession(agentId = "main"): Promise<string> {
  const key = `agent:${agentId}:cron:b500-${uid()}`;
  const created = await call<Answer>("POST", "/v1/sessions", { token: ADMIN, body: { key } });
  expect(created.status, created.text).toBe(201);
  return key;
}

const message = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  role: "user",
  content: `text of ${id}`,
  timestamp: 1_700_000_000_000,
  ...extra,
});

/** Asserts a 400 whose JSON error message starts with the field. */
function expect400(response: { status: number; json: Answer; text: string }, field: RegExp) {
  expect(response.status, response.text).toBe(400);
  expect(errorOf(response).code).toBe("bad_request");
  expect(errorOf(response).message).toMatch(field);
}

async function exportedLines(key: string): Promise<{ content?: unknown }[]> {
  const exported = await call<Answer>("GET", `/v1/sessions/${enc(key)}/transcript.jsonl`, { token: ADMIN });
  expect(exported.status).toBe(200);
  return exported.text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line));
}

describe("sessions_list search with a control character", () => {
  it.each([
    ["NUL", "ab\u0000cd"],
    ["short NUL", "a\u0000"],
    ["newline", "ab\ncd"],
    ["escape", "ab\u001bcd"],
    ["C1", "ab\u0085cd"],
  ])("%s is a 400 naming search on both tool routes", async (_name, search) => {
    const rest = await call<Answer>("POST", "/v1/tools/sessions_list", {
      token: AGENT_TOKENS.main,
      body: { search },
    });
    expect400(rest, /^search: .*control characters/);
    const invoke = await call<Answer>("POST", "/tools/invoke", {
      token: AGENT_TOKENS.main,
      body: { tool: "sessions_list", args: { search } },
    });
    expect(invoke.status).toBe(400);
    expect(errorOf(invoke).message).toMatch(/^search: /);
  });

  it("is at most 256 characters", async () => {
    const search = (length: number) =>
      call<Answer>("POST", "/v1/tools/sessions_list", {
        token: AGENT_TOKENS.main,
        body: { search: "s".repeat(length) },
      });
    expect((await search(256)).status).toBe(200);
    expect400(await search(257), /^search: /);
  });

  it("a search without one still lists", async () => {
    const response = await call<Answer>("POST", "/v1/tools/sessions_list", {
      token: AGENT_TOKENS.main,
      body: { search: "ab cd\u00e9" },
    });
    expect(response.status).toBe(200);
    expect(response.json.count).toBe(0);
  });
});

describe("deeply nested JSON in an imported transcript", () => {
  const toolCall = (depth: number) =>
    message("call", {
      role: "assistant",
      content: [{ type: "toolCall", id: "c1", name: "sessions_list", arguments: nested(depth) }],
    });

  it("5,000 levels is a 400 naming the message, before any write", async () => {
    const key = await createSession();
    const response = await call<Answer>("POST", `/v1/sessions/${enc(key)}/transcript`, {
      token: ADMIN,
      body: { messages: [message("first"), toolCall(5000)] },
    });
    expect400(response, new RegExp(`^messages\\.1: nested deeper than ${MAX_DEPTH} levels$`));
    // Nothing half-written: not even the valid first message.
    expect(await exportedLines(key)).toEqual([]);
  });

  it("in any field of a message, content, a block or an unknown field", async () => {
    const key = await createSession();
    const path = `/v1/sessions/${enc(key)}/transcript`;
    for (const deep of [
      message("a", { custom: nested(5000) }),
      message("b", { details: nested(5000) }),
      message("c", { content: [{ type: "text", text: "x", extra: nested(5000) }] }),
      message("d", { provenance: { kind: "system", trail: nested(5000) } }),
    ]) {
      const response = await call<Answer>("POST", path, { token: ADMIN, body: { messages: [deep] } });
      expect400(response, /^messages\.0: nested deeper than 64 levels$/);
    }
    expect(await exportedLines(key)).toEqual([]);
  });

  it(`a message ${MAX_DEPTH} levels deep is imported and exported as it was; one more level is refused`, async () => {
    const key = await createSession();
    const path = `/v1/sessions/${enc(key)}/transcript`;
    // The message (1), its content (2) and the block (3) hold the arguments.
    const atBound = toolCall(MAX_DEPTH - 3);
    const pastBound = toolCall(MAX_DEPTH - 2);
    expect400(
      await call<Answer>("POST", path, { token: ADMIN, body: { messages: [pastBound] } }),
      /^messages\.0: /,
    );
    const imported = await call<Answer>("POST", path, { token: ADMIN, body: { messages: [atBound] } });
    expect(imported.status, imported.text).toBe(200);
    expect(imported.json.imported).toBe(1);
    expect(await exportedLines(key)).toEqual([atBound]);
    const history = await call<Answer>("POST", "/v1/tools/sessions_history", {
      token: ADMIN,
      headers: { "X-Switchboard-Session": key },
      body: { sessionKey: key, includeTools: true },
    });
    expect(history.status).toBe(200);
    expect(history.json.messages).toHaveLength(1);
  });
});

describe("deeply nested tool-call arguments from a model", () => {
  it("are stored as their raw text, so the transcript stays readable and importable", async () => {
    // model-tools calls sessions_list with the user message as its arguments when that is a JSON object.
    const key = await createSession("model-tools");
    const deepArgs = { deep: nested(100) };
    const text = JSON.stringify(deepArgs);
    const sent = await call<Answer>("POST", `/v1/sessions/${enc(key)}/messages`, {
      token: ADMIN,
      body: { text },
    });
    expect(sent.status).toBe(202);
    const waited = await call<Answer>("POST", `/v1/runs/${sent.json.runId}/wait`, {
      token: ADMIN,
      body: { timeoutMs: 10_000 },
    });
    expect(waited.json.status, waited.text).toBe("ok");
    const lines = await exportedLines(key);
    const blocks = lines.flatMap((line) => (Array.isArray(line.content) ? line.content : []));
    const call_ = blocks.find((block: { type: string }) => block.type === "toolCall");
    expect(call_).toMatchObject({ name: "sessions_list", arguments: { _raw: text } });
    // The stored transcript can be imported elsewhere as it is.
    const copy = await createSession();
    const reimported = await call<Answer>("POST", `/v1/sessions/${enc(copy)}/transcript`, {
      token: ADMIN,
      body: { messages: lines },
    });
    expect(reimported.status, reimported.text).toBe(200);
  });
});

describe("deeply nested tool-call arguments in a scripted rule (configuration)", () => {
  it("nest at most 61 levels (64 once in a message)", () => {
    const config = (depth: number) =>
      parseConfig(
        JSON.stringify({
          agents: {
            list: [
              {
                id: "main",
                runtime: {
                  type: "scripted",
                  rules: [{ match: "*", toolCall: { name: "agents_list", args: { a: nested(depth - 1) } } }],
                },
              },
            ],
          },
        }),
      );
    expect(config(MAX_DEPTH - 3).ok).toBe(true);
    const refused = config(MAX_DEPTH - 2);
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.error).toContain("toolCall.args: nested deeper than 61 levels");
  });
});

describe("MCP tools/call with arguments of the wrong type", () => {
  /** One JSON-RPC request to `/mcp`, stateless, as the main agent's main session. */
  /** A JSON-RPC answer, with the fields these checks read. */
  interface RpcAnswer {
    error?: { code: number; message: string };
    result: {
      isError?: boolean;
      structuredContent: { agents: unknown[] };
      content: { text: string }[];
    };
  }

  async function rpc(body: unknown): Promise<RpcAnswer> {
    const response = await exports.default.fetch("http://switchboard.test/mcp", {
      method: "POST",
      headers: {
        Authorization: `Bearer ${AGENT_TOKENS.main}`,
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
      },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(200);
    return response.json<RpcAnswer>();
  }

  const toolsCall = (params: unknown) => ({ jsonrpc: "2.0", id: 7, method: "tools/call", params });

  it.each([
    ["a string", "sessions", "a string"],
    ["an array", ["x"], "an array"],
    ["a number", 5, "a number"],
    ["null", null, "null"],
  ])("%s is -32602 invalid params naming arguments", async (_name, args, type) => {
    const answer = await rpc(toolsCall({ name: "sessions_list", arguments: args }));
    expect(answer).toEqual({
      jsonrpc: "2.0",
      id: 7,
      // The SDK's McpError prefixes its code, as on every protocol error.
      error: { code: -32602, message: `arguments: must be an object, not ${type}` },
    });
  });

  it("a missing or non-string name, and missing params, are -32602 too", async () => {
    expect((await rpc(toolsCall({ arguments: {} }))).error).toEqual({
      code: -32602,
      message: "name required",
    });
    expect((await rpc(toolsCall({ name: 5 }))).error).toEqual({
      code: -32602,
      message: "name: must be a string, not a number",
    });
    expect((await rpc({ jsonrpc: "2.0", id: 7, method: "tools/call" })).error).toEqual({
      code: -32602,
      message: "params: must be an object",
    });
  });

  it("an object, or no arguments at all, still calls the tool", async () => {
    for (const params of [{ name: "agents_list", arguments: {} }, { name: "agents_list" }]) {
      const answer = await rpc(toolsCall(params));
      expect(answer.error).toBeUndefined();
      expect(answer.result.isError).toBeUndefined();
      expect(answer.result.structuredContent.agents.length).toBeGreaterThan(0);
    }
    // Arguments the tool's schema refuses stay an isError result, as before.
    const invalid = await rpc(toolsCall({ name: "sessions_list", arguments: { limit: "5" } }));
    expect(invalid.result.isError).toBe(true);
    expect(invalid.result.content[0]?.text).toContain("limit");
  });
});
