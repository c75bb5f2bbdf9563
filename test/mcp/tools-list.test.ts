import { describe, expect, it } from "vitest";
import type { ToolName } from "../../src/config/schema";
import { profileTools } from "../../src/policy/tool-profiles";
import { toolRegistry } from "../../src/tools/registry";
import { toolJsonSchema } from "../../src/tools/specs";
import { VERSION } from "../../src/version";
import { ADMIN, AGENT_TOKENS, runToken, uid } from "../support";
import { connectMcp, type JsonRpcResult, listedNames, rawMcp, registeredAmong } from "../support/mcp";

/** SPEC §5.4: what every sub-agent loses, and what a leaf (depth ≥ maxSpawnDepth) loses besides. */
const SUBAGENT_DENIED = ["sessions_send", "session_status", "agents_list", "cron"];
const LEAF_DENIED = [
  "sessions_spawn",
  "subagents",
  "sessions_list",
  "sessions_history",
  "sessions_yield",
  "sessions",
  "sessions_search",
  "agents_wait",
];

describe("MCP initialize and tools/list", () => {
  it("an agent token (main, coding profile) lists every registered coding tool with its zod schema", async () => {
    const client = await connectMcp(AGENT_TOKENS.main);
    expect(client.getServerVersion()).toEqual({ name: "Switchboard", version: VERSION });
    expect(client.getServerCapabilities()?.tools).toBeDefined();

    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(registeredAmong(profileTools.coding));
    for (const name of [
      "sessions_list",
      "sessions_history",
      "sessions_send",
      "session_status",
      "agents_list",
    ]) {
      expect(tools.map((tool) => tool.name)).toContain(name);
    }
    for (const tool of tools) {
      const registered = toolRegistry[tool.name as ToolName];
      expect(tool.description, tool.name).toBe(registered?.description);
      expect(tool.inputSchema, tool.name).toEqual(toolJsonSchema(tool.name as ToolName));
      expect(tool.inputSchema.type, tool.name).toBe("object");
      expect(tool.inputSchema, tool.name).not.toHaveProperty("anyOf");
      expect(tool.inputSchema, tool.name).not.toHaveProperty("oneOf");
    }
    // The generated schema carries the zod schema's required fields and descriptions.
    const history = tools.find((tool) => tool.name === "sessions_history");
    expect(history?.inputSchema.required).toEqual(["sessionKey"]);
    expect(history?.inputSchema.properties?.limit).toMatchObject({ type: "number" });
  });

  it("tells clients which tools only read, which may destroy, which repeat safely (annotations)", async () => {
    const { tools } = await (await connectMcp(AGENT_TOKENS.main)).listTools();
    const hints = Object.fromEntries(tools.map((tool) => [tool.name, tool.annotations]));
    for (const tool of tools) {
      expect(tool.annotations, tool.name).toEqual({
        readOnlyHint: expect.any(Boolean),
        destructiveHint: expect.any(Boolean),
        idempotentHint: expect.any(Boolean),
      });
    }
    const reads = ["sessions_list", "sessions_history", "sessions_search", "agents_list", "agents_wait"];
    for (const name of reads.filter((name) => name in hints))
      expect(hints[name], name).toEqual({ readOnlyHint: true, destructiveHint: false, idempotentHint: true });
    // session_status sets the model when asked to; sessions_send and sessions_spawn start runs.
    for (const name of ["session_status", "sessions_send", "sessions_spawn"])
      expect(hints[name]?.readOnlyHint, name).toBe(false);
    expect(hints.sessions_send).toMatchObject({ destructiveHint: false, idempotentHint: false });
    // subagents kills and cancels; sessions deletes.
    for (const name of ["subagents", "sessions"].filter((name) => name in hints))
      expect(hints[name], name).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  });

  it("advertises no tools/list_changed: a stateless server has no stream to send it on", async () => {
    const client = await connectMcp(AGENT_TOKENS.main);
    expect(client.getServerCapabilities()).toEqual({ tools: {} });
  });

  it("ops (messaging profile) sees fewer tools: no agents_list", async () => {
    const ops = await listedNames(await connectMcp(AGENT_TOKENS.ops));
    const main = await listedNames(await connectMcp(AGENT_TOKENS.main));
    expect(ops).toEqual(registeredAmong(profileTools.messaging));
    expect(ops).toEqual(expect.arrayContaining(["sessions_list", "sessions_send", "session_status"]));
    expect(ops).not.toContain("agents_list");
    expect(ops.length).toBeLessThan(main.length);
  });

  it("a depth-1 sub-agent run token (a leaf at maxSpawnDepth 1) keeps no session tools", async () => {
    const child = `agent:main:subagent:mcp-${uid()}`;
    const names = await listedNames(
      await connectMcp(await runToken({ agentId: "main", sessionKey: child, depth: 1 })),
    );
    const denied = [...SUBAGENT_DENIED, ...LEAF_DENIED];
    expect(names).toEqual(registeredAmong(profileTools.coding.filter((name) => !denied.includes(name))));
    for (const name of denied) expect(names).not.toContain(name);
  });

  it("a top-level run token lists what its agent's profile grants", async () => {
    const names = await listedNames(
      await connectMcp(
        await runToken({ agentId: "ops", sessionKey: `agent:ops:mcp-run-${uid()}`, depth: 0 }),
      ),
    );
    expect(names).toEqual(registeredAmong(profileTools.messaging));
  });

  it("an operator token acting as a named session gets that session's tools", async () => {
    const headers = { "X-Switchboard-Session": `agent:ops:mcp-op-${uid()}` };
    expect(await listedNames(await connectMcp(ADMIN, headers))).toEqual(
      registeredAmong(profileTools.messaging),
    );
  });

  it("is stateless: no MCP session id, and tools/list answers without a prior initialize", async () => {
    const init = await rawMcp(AGENT_TOKENS.main, {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
    });
    expect(init.status).toBe(200);
    expect(init.headers.get("Mcp-Session-Id")).toBeNull();
    expect(init.headers.get("Content-Type")).toContain("application/json");
    expect((await init.json<JsonRpcResult<{ protocolVersion: string }>>()).result.protocolVersion).toBe(
      "2025-06-18",
    );

    const list = await rawMcp(AGENT_TOKENS.ops, { jsonrpc: "2.0", id: 2, method: "tools/list" });
    expect(list.status).toBe(200);
    const body = await list.json<JsonRpcResult<{ tools: { name: string }[] }>>();
    expect(body.result.tools.map((tool: { name: string }) => tool.name).sort()).toEqual(
      registeredAmong(profileTools.messaging),
    );
  });
});
