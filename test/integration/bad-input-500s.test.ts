import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { AGENT_TOKENS } from "../helpers";

// Inputs that used to come back as a 500 (or -32603 over MCP): each is now a 4xx (or -32602) naming its
// field, and writes nothing.

describe("MCP tools/call with arguments of the wrong type", () => {
  /** One JSON-RPC request to `/mcp`, stateless, as the main agent's main session. */
  async function rpc(body: unknown): Promise<any> {
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
    return response.json();
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
      error: { code: -32602, message: `MCP error -32602: arguments: must be an object, not ${type}` },
    });
  });

  it("a missing or non-string name, and missing params, are -32602 too", async () => {
    expect((await rpc(toolsCall({ arguments: {} }))).error).toEqual({
      code: -32602,
      message: "MCP error -32602: name required",
    });
    expect((await rpc(toolsCall({ name: 5 }))).error).toEqual({
      code: -32602,
      message: "MCP error -32602: name: must be a string, not a number",
    });
    expect((await rpc({ jsonrpc: "2.0", id: 7, method: "tools/call" })).error).toEqual({
      code: -32602,
      message: "MCP error -32602: params: must be an object",
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
    expect(invalid.result.content[0].text).toContain("limit");
  });
});
