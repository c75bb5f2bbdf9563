import { exports } from "cloudflare:workers";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect, onTestFinished } from "vitest";
import type { ToolName } from "../../src/config/schema";
import { toolRegistry } from "../../src/tools/registry";
import { BASE_URL } from "./http";
import type { ToolResults } from "./wire";

export const MCP_URL = `${BASE_URL}/mcp`;

/**
 * The official MCP client, connected (initialize + initialized) to the Worker's `/mcp` over its real
 * fetch handler, with a bearer token and any extra headers; closed when the test ends.
 */
export async function connectMcp(token: string, headers: Record<string, string> = {}): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), {
    requestInit: { headers: { Authorization: `Bearer ${token}`, ...headers } },
    fetch: (url, init) => exports.default.fetch(url, init),
  });
  const client = new Client({ name: "switchboard-mcp-test", version: "1.0.0" });
  await client.connect(transport);
  onTestFinished(() => client.close());
  return client;
}

/** The sorted names `tools/list` returns to this client. */
export async function listedNames(client: Client): Promise<string[]> {
  const { tools } = await client.listTools();
  return tools.map((tool) => tool.name).sort();
}

/** The registered tools among `names`, sorted: what a caller granted `names` must be listed. */
export function registeredAmong(names: readonly string[]): string[] {
  return Object.keys(toolRegistry)
    .filter((name) => names.includes(name))
    .sort();
}

/** Every tool the registry serves right now. */
export function registeredTools(): ToolName[] {
  return Object.keys(toolRegistry) as ToolName[];
}

/**
 * A `tools/call` result's details: `details`, equal to `structuredContent`, with one text block holding
 * their JSON (SPEC §5.0 envelope; a session_status card is the card itself), and `isError` exactly on
 * `error`/`forbidden` results. `Name` is the tool that was called, for the details' type.
 */
export function detailsOf<Name extends keyof ToolResults = keyof ToolResults>(
  result: Record<string, unknown>,
): ToolResults[Name] {
  const content = result.content as { type: string; text: string }[];
  expect(content).toHaveLength(1);
  expect(content[0]?.type).toBe("text");
  const details = result.details as ToolResults[Name];
  const card = (details as { statusText?: unknown }).statusText;
  expect(content[0]?.text).toBe(typeof card === "string" ? card : JSON.stringify(details));
  expect(result.structuredContent).toEqual(details);
  const failed = details.status === "error" || details.status === "forbidden";
  expect(result.isError === true, JSON.stringify(details)).toBe(failed);
  return details;
}

/** A JSON-RPC success as `/mcp` sends it to a raw client. */
export interface JsonRpcResult<Result> {
  jsonrpc: "2.0";
  id: number | string;
  result: Result;
}

/** A JSON-RPC error as `/mcp` sends it to a raw client. */
export interface JsonRpcError {
  jsonrpc: "2.0";
  id: number | string | null;
  error: { code: number; message: string };
}

/** A raw JSON-RPC POST to `/mcp`, as a client without the SDK would send it. */
export function rawMcp(token: string | undefined, body: unknown, headers: Record<string, string> = {}) {
  return exports.default.fetch(MCP_URL, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: JSON.stringify(body),
  });
}
