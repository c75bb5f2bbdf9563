import { JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { invokeBodySchema } from "../routes/tools-invoke";
import { errorBodySchema, invokeResultSchema } from "./components";
import type { HeaderDoc, ResponseDoc, RouteDoc } from "./types";

const sessionHeader: HeaderDoc = {
  name: "X-Switchboard-Session",
  description: "Operator tokens: the requester session the call acts as (agent tokens: one of their own).",
};

/** The headers an operator token names its requester session with (SPEC §3). */
export const requesterHeaders: HeaderDoc[] = [
  sessionHeader,
  { name: "X-Switchboard-Agent", description: "Operator tokens: the agent of the requester session." },
];

const TEXT = { type: "string" };

const healthSchema = z.object({
  ok: z.boolean(),
  version: z.string(),
  config: z.string().describe("Where the configuration comes from: SWITCHBOARD_CONFIG, or the bundled file."),
  missingSecrets: z
    .array(z.string())
    .optional()
    .describe("Secrets the configuration names that the Worker does not have (names only)."),
});

const configInvalid = {
  status: 500,
  description: "The configuration is invalid; the message names the bad path (SPEC §2).",
  schema: { $ref: "#/components/schemas/Error" },
  example: {
    error: {
      code: "config_invalid",
      message: "config/production.json invalid: agents.list[1].runtime.type: …",
    },
  },
};

/** An error the MCP transport answers itself, as a JSON-RPC error object. */
function jsonRpcError(status: number, description: string, code: number, message: string): ResponseDoc {
  return { status, description, example: { jsonrpc: "2.0", error: { code, message }, id: null } };
}

/** The service's own routes, the two tool routes and MCP. */
export const serviceRoutes: RouteDoc[] = [
  {
    method: "GET",
    path: "/healthz",
    operationId: "getHealth",
    summary: "Health",
    description:
      "The version, where the configuration comes from, whether it is valid, and the secrets it names that the Worker lacks (by name). Needs no token.",
    tag: "Service",
    auth: "none",
    responses: [
      {
        status: 200,
        description: "Running with a valid configuration.",
        schema: healthSchema,
        example: { ok: true, version: "0.1.0", config: "config/production.json", missingSecrets: [] },
      },
      {
        status: 500,
        description: "The configuration is invalid; the message names the bad path.",
        schema: healthSchema.extend(errorBodySchema.shape),
        example: {
          ok: false,
          version: "0.1.0",
          config: "config/production.json",
          error: {
            code: "config_invalid",
            message: "config/production.json invalid: agents.list[1].runtime.type: …",
          },
        },
      },
    ],
    errors: [],
  },
  {
    method: "GET",
    path: "/openapi.json",
    operationId: "getOpenApiDocument",
    summary: "OpenAPI document",
    description:
      "This document: every route and every registered tool, generated from the zod schemas the routes validate with. Needs no token.",
    tag: "Service",
    auth: "none",
    responses: [
      {
        status: 200,
        description: "An OpenAPI 3.1 document.",
        schema: { type: "object", required: ["openapi", "info", "paths"] },
      },
      configInvalid,
    ],
    errors: [],
  },
  {
    method: "GET",
    path: "/docs",
    operationId: "getApiReference",
    summary: "API reference page",
    description:
      "An interactive reference rendered from `/openapi.json` (Scalar), working offline: Scalar's script (`@scalar/api-reference`'s browser bundle) is a static asset of the same origin, `/docs/scalar.js`, served without reaching the Worker. Without JavaScript the page shows the same operations as static HTML. Needs no token.",
    tag: "Service",
    auth: "none",
    responses: [
      { status: 200, description: "An HTML page.", contentType: "text/html", schema: TEXT },
      configInvalid,
    ],
    errors: [],
  },
  {
    method: "GET",
    path: "/favicon.ico",
    operationId: "getFavicon",
    summary: "Icon",
    description:
      "The console's icon (SVG), which browsers ask every origin for; answered whatever the configuration. Needs no token.",
    tag: "Service",
    auth: "none",
    responses: [{ status: 200, description: "An SVG image.", contentType: "image/svg+xml", schema: TEXT }],
    errors: [],
  },
  {
    method: "GET",
    path: "/console",
    operationId: "getConsole",
    summary: "Operator console",
    description:
      "The operator console in a browser (README \"Console\"): sessions, search, transcripts, runs, sub-agents, deliveries, live. Its pages hold no data; their script signs in with the operator token or a session grant (kept in the tab's sessionStorage) and fetches the pages' parts from `/console/fragments/…` with it. Every console response carries a strict Content-Security-Policy.",
    tag: "Service",
    auth: "none",
    responses: [
      { status: 200, description: "An HTML page.", contentType: "text/html", schema: TEXT },
      configInvalid,
    ],
    errors: [],
  },
  {
    method: "POST",
    path: "/tools/invoke",
    operationId: "invokeTool",
    summary: "Invoke a tool (OpenClaw-compatible)",
    description:
      "Runs one tool as the requester the credential names. Policy and lookup failures are results (`status: forbidden | error`) answered with 200. The `args` of each tool are the request bodies of `POST /v1/tools/{name}`.",
    tag: "Tools",
    auth: "bearer",
    headers: [sessionHeader],
    body: {
      name: "InvokeRequest",
      schema: invokeBodySchema,
      example: { tool: "sessions_list", args: { limit: 10 }, sessionKey: "agent:main:main" },
    },
    responses: [
      {
        status: 200,
        description: "The tool ran; `result.details` is its result, forbidden and error results included.",
        schema: invokeResultSchema,
        example: {
          ok: true,
          result: {
            content: [{ type: "text", text: '{"count":0,"sessions":[]}' }],
            details: { count: 0, sessions: [] },
          },
        },
      },
    ],
    errors: [400, 401, 403, 404, 413, 500],
    invokeErrors: true,
  },
  {
    method: "POST",
    path: "/v1/tools/:name",
    operationId: "callTool",
    summary: "Call a tool",
    tag: "Tools",
    auth: "bearer",
    headers: requesterHeaders,
    responses: [],
    errors: [400, 401, 403, 404, 413, 500],
    perTool: true,
  },
  {
    method: "POST",
    path: "/mcp",
    operationId: "mcp",
    summary: "MCP (Streamable HTTP, stateless)",
    description:
      "The same tools over the Model Context Protocol: `initialize`, `tools/list` (the tools the caller may use, with their JSON schemas) and `tools/call`. Send `Accept: application/json, text/event-stream`; answers are JSON.",
    tag: "MCP",
    auth: "bearer",
    headers: requesterHeaders,
    body: {
      name: "JsonRpcMessage",
      schema: JSONRPCMessageSchema,
      example: { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} },
    },
    responses: [
      {
        status: 200,
        description: "A JSON-RPC response.",
        schema: JSONRPCMessageSchema,
        example: { jsonrpc: "2.0", id: 1, result: { tools: [{ name: "sessions_list" }] } },
      },
      { status: 202, description: "A notification or response was accepted." },
      jsonRpcError(400, "Not a valid JSON-RPC message.", -32700, "Parse error: Invalid JSON-RPC message"),
      jsonRpcError(
        406,
        "`Accept` lacks `application/json` or `text/event-stream`.",
        -32000,
        "Not Acceptable",
      ),
      jsonRpcError(415, "`Content-Type` is not `application/json`.", -32000, "Unsupported Media Type"),
    ],
    errors: [401, 403, 413, 500],
  },
  ...(["GET", "DELETE"] as const).map(
    (method): RouteDoc => ({
      method,
      path: "/mcp",
      operationId: `mcp${method === "GET" ? "Stream" : "EndSession"}`,
      summary: `MCP ${method} (not offered)`,
      description: "The server is stateless: no server-initiated stream and no session to end.",
      tag: "MCP",
      auth: "bearer",
      responses: [
        {
          status: 405,
          description: "Not allowed; POST requests.",
          example: { jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed" }, id: null },
        },
      ],
      errors: [401],
    }),
  ),
  // OpenClaw's gateway answers these with 405 too; the method is checked before the token.
  ...(["GET", "PUT", "PATCH", "DELETE"] as const).map(
    (method): RouteDoc => ({
      method,
      path: "/tools/invoke",
      operationId: `invokeTool${method.charAt(0)}${method.slice(1).toLowerCase()}`,
      summary: `Invoke a tool: ${method} (not offered)`,
      description: "Tools are invoked with POST.",
      tag: "Tools",
      auth: "none",
      responses: [
        {
          status: 405,
          description: "Not allowed; POST requests (`Allow: POST`).",
          example: {
            ok: false,
            error: { type: "method_not_allowed", message: `${method} /tools/invoke: use POST` },
          },
        },
      ],
      errors: [],
    }),
  ),
];
