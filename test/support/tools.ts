import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { resolveRequester } from "../../src/auth/requester";
import type { SwitchboardConfig } from "../../src/config/schema";
import { indexShards } from "../../src/index-db/shards";
import type { Requester } from "../../src/policy/requester";
import type { QueueMessage } from "../../src/queue/messages";
import { stringifyJson } from "../../src/text/json-text";
import { toolContext } from "../../src/tools/context";
import { executeToolCall } from "../../src/tools/invoke";
import type { ToolContext } from "../../src/tools/types";
import { ADMIN } from "./auth";
import { workerConfig } from "./config";
import { call } from "./http";
import type { ResultOf, ToolResults } from "./wire";

/** `POST /v1/tools/{name}` as the operator acting for `requesterKey`: the response as it is. */
export function callTool<Body = unknown>(
  name: string,
  requesterKey: string,
  args: Record<string, unknown> = {},
) {
  return call<Body>("POST", `/v1/tools/${name}`, {
    token: ADMIN,
    body: args,
    headers: { "X-Switchboard-Session": requesterKey },
  });
}

/** A tool call expected to succeed at the HTTP level (results may still be `forbidden`/`error`): its result. */
export async function tool<Name extends string>(
  name: Name,
  requesterKey: string,
  args: Record<string, unknown> = {},
): Promise<ResultOf<Name>> {
  const response = await callTool<ResultOf<Name>>(name, requesterKey, args);
  expect(response.status, response.text).toBe(200);
  return response.json;
}

/** `sessions_send` over HTTP as the operator acting for `requester`. */
export function send(
  requester: string,
  args: Record<string, unknown>,
): Promise<ToolResults["sessions_send"]> {
  return tool("sessions_send", requester, args);
}

/** The keys of a `sessions_list` result, in order. */
export function keysOf(result: { sessions: { key: string }[] }): string[] {
  return result.sessions.map((row) => row.key);
}

/**
 * A stored tool result's JSON (`[{ type: "text", text }]` holds it as text), parsed. With `name`, the
 * result is checked to be that tool's, and typed as its result.
 */
export function toolResultJson(message: StoredToolResult | undefined): unknown;
export function toolResultJson<Name extends keyof ToolResults>(
  message: StoredToolResult | undefined,
  name: Name,
): ToolResults[Name];
export function toolResultJson(message: StoredToolResult | undefined, name?: keyof ToolResults): unknown {
  if (name !== undefined && message?.toolName !== name)
    throw new Error(`not a ${name} result: ${JSON.stringify(message)}`);
  const blocks = message?.content as { type: string; text: string }[];
  return JSON.parse(blocks[0]?.text ?? "null");
}

/** What `toolResultJson` reads of a stored message. */
type StoredToolResult = { content: unknown; toolName?: string };

/**
 * Runs a tool through the tool layer with another configuration: what `/v1/tools/{name}` does for an
 * operator call, minus HTTP (src/routes/tool-call.ts), against the same D1 and session objects.
 */
export async function toolWithConfig<Name extends string>(
  config: SwitchboardConfig,
  name: Name,
  requesterKey: string,
  args: Record<string, unknown> = {},
): Promise<ResultOf<Name>> {
  const requester = await resolveRequester(
    { kind: "operator" },
    { sessionKey: requesterKey },
    config,
    indexShards(env),
  );
  if (!requester.ok) throw new Error(requester.message);
  const outcome = await executeToolCall(toolContext(env, config, requester.requester), name, args);
  if (!outcome.ok) throw new Error(`${name}: ${outcome.message}`);
  // As the route answers it: JSON (a history page's messages are stored JSON text until then).
  return JSON.parse(stringifyJson(outcome.details)) as ResultOf<Name>;
}

/**
 * A tool context on the real bindings whose queue is a list: what a send would put on the Queue is
 * kept for the test to deliver (or not) itself.
 */
export function capturingContext(
  requester: Requester,
  config = workerConfig(),
): { ctx: ToolContext; queued: QueueMessage[] } {
  const queued: QueueMessage[] = [];
  const ctx: ToolContext = {
    ...toolContext(env, config, requester),
    sendToQueue: async (message) => {
      queued.push(structuredClone(message));
    },
  };
  return { ctx, queued };
}

/** Runs sessions_send through the tool layer (no HTTP) and returns its result. */
export async function sendWith(
  ctx: ToolContext,
  args: Record<string, unknown>,
): Promise<ToolResults["sessions_send"]> {
  const outcome = await executeToolCall(ctx, "sessions_send", args);
  if (!outcome.ok) throw new Error(`sessions_send: ${outcome.message}`);
  return outcome.details as ToolResults["sessions_send"];
}
