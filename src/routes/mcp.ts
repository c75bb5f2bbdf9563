import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { Hono } from "hono";
import type { AppEnv } from "../app-env";
import { resolveRequester } from "../auth/requester";
import { AppError } from "../errors";
import { readShards } from "../index-db/shards";
import { createMcpServer } from "../mcp/server";
import { toolContext } from "../tools/context";

/**
 * `/mcp`: the tools over MCP Streamable HTTP, stateless (SPEC §9). Every POST gets its own server and
 * transport, so any Worker instance answers any request; answers are JSON, never a held-open stream.
 * The bearer token is checked by the app's middleware; the requester is fixed as on the tool routes.
 */
export const mcpRoutes = new Hono<AppEnv>()
  .post("/", async (c) => {
    const config = c.get("config");
    const named = {
      sessionKey: c.req.header("X-Switchboard-Session"),
      agentId: c.req.header("X-Switchboard-Agent"),
    };
    const requester = await resolveRequester(c.get("identity"), named, config, readShards(c.env));
    if (!requester.ok) throw new AppError(requester.code, requester.message);
    const waitUntil = (work: Promise<unknown>) => c.executionCtx.waitUntil(work);
    const server = createMcpServer(toolContext(c.env, config, requester.requester, undefined, waitUntil));
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw);
    } finally {
      await server.close();
    }
  })
  // No MCP session means no server-initiated stream to open (GET) and nothing to end (DELETE); the
  // transport spec answers both with 405, which clients take as "not offered".
  .on(["GET", "DELETE"], "/", (c) =>
    c.json(
      {
        jsonrpc: "2.0",
        error: { code: -32000, message: "Method not allowed: this MCP server is stateless; POST requests" },
        id: null,
      },
      405,
      { Allow: "POST" },
    ),
  );
