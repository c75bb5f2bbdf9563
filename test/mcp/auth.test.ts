import { exports } from "cloudflare:workers";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { mintRunToken } from "../../src/auth/run-token";
import { ADMIN, AGENT_TOKENS, uid } from "../support";
import { connectMcp, type JsonRpcError, MCP_URL, rawMcp } from "../support/mcp";

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
};

/** The HTTP status the official client reports when connecting fails. */
async function connectFailure(token: string, headers: Record<string, string> = {}) {
  const error = await connectMcp(token, headers).then(
    () => undefined,
    (cause: unknown) => cause,
  );
  expect(error).toBeInstanceOf(StreamableHTTPError);
  return error as StreamableHTTPError;
}

describe("MCP auth", () => {
  it("a bad token: the client gets a 401 with no detail", async () => {
    const error = await connectFailure("not-a-token");
    expect(error.code).toBe(401);
    expect(error.message).toContain('"code":"unauthorized"');
    expect(error.message).not.toContain("not-a-token");
  });

  it("a missing token, and an expired run token, are 401 too", async () => {
    expect((await rawMcp(undefined, INITIALIZE)).status).toBe(401);
    const expired = await mintRunToken("test-signing-key-0123456789abcdef", {
      agentId: "main",
      sessionKey: `agent:main:mcp-exp-${uid()}`,
      runId: crypto.randomUUID(),
      depth: 0,
      sandboxed: false,
      exp: Math.floor(Date.now() / 1000) - 1,
    });
    expect((await connectFailure(expired)).code).toBe(401);
  });

  it("an operator token must name the requester session", async () => {
    const error = await connectFailure(ADMIN);
    expect(error.code).toBe(400);
    expect(error.message).toContain("sessionKey required");
    expect(error.message).toContain("X-Switchboard-Session");

    const named = await connectMcp(ADMIN, { "X-Switchboard-Session": `agent:main:mcp-op-${uid()}` });
    expect((await named.listTools()).tools.length).toBeGreaterThan(0);
  });

  it("an agent token naming another agent's session is 403 with the reason", async () => {
    const error = await connectFailure(AGENT_TOKENS.main, { "X-Switchboard-Session": "agent:ops:main" });
    expect(error.code).toBe(403);
    expect(error.message).toContain("acts only as that agent's sessions");
  });

  it("GET and DELETE are 405: a stateless server offers no stream and no session", async () => {
    for (const method of ["GET", "DELETE"]) {
      const response = await exports.default.fetch(MCP_URL, {
        method,
        headers: { Authorization: `Bearer ${AGENT_TOKENS.main}`, Accept: "text/event-stream" },
      });
      expect(response.status, method).toBe(405);
      expect(response.headers.get("Allow")).toBe("POST");
      expect((await response.json<JsonRpcError>()).error.code).toBe(-32000);
    }
  });

  it("a body over 2 MB is 413 before MCP parses it", async () => {
    const huge = { ...INITIALIZE, params: { ...INITIALIZE.params, padding: "x".repeat(2 * 1024 * 1024) } };
    const response = await rawMcp(AGENT_TOKENS.main, huge);
    expect(response.status).toBe(413);
  });
});
