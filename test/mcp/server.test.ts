import { env } from "cloudflare:workers";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import type { SwitchboardConfig } from "../../src/config/schema";
import { createMcpServer } from "../../src/mcp/server";
import type { Requester } from "../../src/policy/requester";
import { profileTools } from "../../src/policy/tool-profiles";
import { toolContext } from "../../src/tools/context";
import { agentIn, uid, workerConfigWith } from "../support";
import { listedNames, registeredAmong } from "../support/mcp";

/**
 * The MCP server of src/mcp/server.ts under configurations the running Worker does not have, reached
 * by the official client over the SDK's in-memory transport (the HTTP side is covered by the other files).
 */
async function clientFor(config: SwitchboardConfig, requester: Requester, bindings: Env = env) {
  const server = createMcpServer(toolContext(bindings, config, requester));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "switchboard-mcp-test", version: "1.0.0" });
  await client.connect(clientSide);
  onTestFinished(() => client.close());
  return client;
}

const topLevel = (agentId: string): Requester => ({
  agentId,
  sessionKey: `agent:${agentId}:mcp-unit-${uid()}`,
  depth: 0,
  sandboxed: false,
  isSubagent: false,
});

const subagent = (agentId: string, depth: number): Requester => ({
  agentId,
  sessionKey: `agent:${agentId}:subagent:mcp-unit-${uid()}`,
  depth,
  sandboxed: false,
  isSubagent: true,
});

describe("MCP tools/list follows the tool policy", () => {
  it("alsoAllow adds a tool back to the messaging profile, and it can be called", async () => {
    const config = workerConfigWith((document) => {
      const ops = agentIn(document, "ops");
      ops.tools = { ...ops.tools, alsoAllow: ["agents_list"] };
    });
    const client = await clientFor(config, topLevel("ops"));
    expect(await listedNames(client)).toEqual(registeredAmong([...profileTools.messaging, "agents_list"]));
    const result = await client.callTool({ name: "agents_list", arguments: {} });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({ requester: "ops" });
  });

  it("with maxSpawnDepth 2 a depth-1 orchestrator keeps list and history, never send or status", async () => {
    const config = workerConfigWith((document) => {
      document.agents.defaults.subagents.maxSpawnDepth = 2;
    });
    const names = await listedNames(await clientFor(config, subagent("main", 1)));
    // The cron tool is never offered to a sub-agent (SPEC §22), whatever its profile.
    const denied = ["sessions_send", "session_status", "agents_list", "cron"];
    expect(names).toEqual(registeredAmong(profileTools.coding.filter((name) => !denied.includes(name))));
    expect(names).toEqual(expect.arrayContaining(["sessions_list", "sessions_history"]));
  });

  it("tools.subagents.tools.deny wins over the profile", async () => {
    const config = workerConfigWith((document) => {
      document.agents.defaults.subagents.maxSpawnDepth = 2;
      document.tools.subagents = { tools: { deny: ["sessions_history"] } };
    });
    const names = await listedNames(await clientFor(config, subagent("main", 1)));
    expect(names).toContain("sessions_list");
    expect(names).not.toContain("sessions_history");
  });
});

describe("MCP errors stay sanitized", () => {
  it("a storage failure is an internal error without its detail", async () => {
    const failingDb = {
      prepare: () => {
        throw new Error("D1 secret detail");
      },
    } as unknown as D1Database;
    const client = await clientFor(
      workerConfigWith(() => {}),
      topLevel("main"),
      { ...env, DB: failingDb },
    );
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    onTestFinished(() => logged.mockRestore());
    const error = await client.callTool({ name: "sessions_list", arguments: {} }).catch((cause) => cause);
    expect(error.code).toBe(ErrorCode.InternalError);
    expect(error.message).toMatch(/: internal error$/);
    expect(logged).toHaveBeenCalledWith("POST /mcp tools/call failed:", expect.any(Error));
  });
});
