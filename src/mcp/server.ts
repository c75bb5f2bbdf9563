import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { allowedTools } from "../policy/tool-profiles";
import { executeToolCall, toolEnvelope } from "../tools/invoke";
import { toolSpecs } from "../tools/specs";
import type { ToolContext } from "../tools/types";
import { PRODUCT_NAME, VERSION } from "../version";
import { annotationsOf } from "./annotations";

/**
 * A JSON-RPC error as the client should read it. Not the SDK's McpError: its message already reads
 * "MCP error <code>: …", and the SDK's client adds that prefix again to what it receives.
 */
class ProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** The tools the context's requester may call, as MCP lists them (SPEC §5.9): all from the registry. */
export function mcpToolList(ctx: Pick<ToolContext, "config" | "requester">): Tool[] {
  return toolSpecs(allowedTools(ctx.config, ctx.requester)).map((spec) => ({
    name: spec.name,
    description: spec.description,
    // Every tool schema is a zod object, so this restates the generated `type` for the SDK's types.
    inputSchema: { ...spec.parameters, type: "object" },
    annotations: annotationsOf(spec.name),
  }));
}

/**
 * One `tools/call`, on the same path as `/tools/invoke`: a tool the caller may not use is a protocol
 * error (as an unknown one is in MCP); invalid arguments and `error`/`forbidden` results are `isError`
 * results, so that a model reads them and can correct itself.
 */
export async function mcpCallTool(ctx: ToolContext, name: string, args: unknown): Promise<CallToolResult> {
  const outcome = await executeToolCall(ctx, name, args);
  if (!outcome.ok && outcome.code === "tool_not_found") {
    throw new ProtocolError(ErrorCode.InvalidParams, outcome.message);
  }
  if (!outcome.ok) {
    return {
      content: [{ type: "text", text: `Invalid arguments for ${name}: ${outcome.message}` }],
      isError: true,
    };
  }
  const { details } = outcome;
  const status = "status" in details ? details.status : undefined;
  const failed = status === "error" || status === "forbidden";
  return {
    ...toolEnvelope(name, details),
    structuredContent: { ...details },
    ...(failed ? { isError: true } : {}),
  };
}

/** The `tools/call` params a handler gets: a tool name and, when given, an arguments object. */
interface CallToolParams {
  name: string;
  arguments?: Record<string, unknown>;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const typeName = (value: unknown) =>
  value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;

/** Checks `tools/call` params, throwing -32602 (invalid params) that names the field. */
function callToolParams(params: unknown): CallToolParams {
  if (!isObject(params)) throw new ProtocolError(ErrorCode.InvalidParams, "params: must be an object");
  const { name, arguments: args } = params;
  if (name === undefined) throw new ProtocolError(ErrorCode.InvalidParams, "name required");
  if (typeof name !== "string")
    throw new ProtocolError(ErrorCode.InvalidParams, `name: must be a string, not ${typeName(name)}`);
  if (args !== undefined && !isObject(args))
    throw new ProtocolError(ErrorCode.InvalidParams, `arguments: must be an object, not ${typeName(args)}`);
  return { ...params, name, ...(args !== undefined ? { arguments: args } : {}) };
}

/**
 * `tools/call` as the protocol layer parses it, before any handler runs. The SDK's own schema answers a
 * wrong `arguments` type with -32603 and a raw zod dump; this one answers -32602 naming the field, as the
 * SDK's McpServer does for invalid input. zod does not catch what a transform throws, so the ProtocolError
 * reaches the client as it is.
 */
const callToolRequestSchema = z.object({
  method: z.literal("tools/call"),
  params: z.unknown().transform(callToolParams),
});

/** Runs a handler, turning anything unexpected into a sanitized internal error (logged, never sent). */
async function sanitized<T>(method: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ProtocolError) throw error;
    console.error(`POST /mcp ${method} failed:`, error);
    throw new ProtocolError(ErrorCode.InternalError, "internal error");
  }
}

/** A fresh MCP server for one request, answering as the context's requester (the endpoint is stateless). */
export function createMcpServer(ctx: ToolContext): Server {
  // The low-level Server, not McpServer and `registerTool`: the registry's own zod schemas, argument
  // aliases and error messages stay the single source (SPEC §5.0) instead of the SDK's validation of
  // them. McpServer would also advertise `tools.listChanged`, which a server that keeps no stream open
  // (every request is its own server) can never send.
  const server = new Server({ name: PRODUCT_NAME, version: VERSION }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () =>
    sanitized("tools/list", async () => ({ tools: mcpToolList(ctx) })),
  );
  server.setRequestHandler(callToolRequestSchema, (request) =>
    sanitized("tools/call", () => mcpCallTool(ctx, request.params.name, request.params.arguments)),
  );
  return server;
}
