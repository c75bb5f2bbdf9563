import { env, exports } from "cloudflare:workers";
import { expect } from "vitest";
import { resolveRequester } from "../../src/auth/requester";
import { parseConfig } from "../../src/config/load";
import type { SwitchboardConfig } from "../../src/config/schema";
import { sessionApi } from "../../src/session/client";
import type { CreateSessionInit } from "../../src/session/session-object";
import { toolContext } from "../../src/tools/context";
import { executeToolCall } from "../../src/tools/invoke";
import { ADMIN, call } from "../support/http";

/** A short unique suffix, so every test works on its own session keys. */
export function uid(): string {
  return crypto.randomUUID().slice(0, 8);
}

/** The REST path of a session, with its key URL-encoded. */
export function sessionPath(key: string, suffix = ""): string {
  return `/v1/sessions/${encodeURIComponent(key)}${suffix}`;
}

/** A transcript message as a client would import it. */
export function msg(
  id: string,
  role: "user" | "assistant" | "toolResult" | "tool" | "system",
  content: unknown,
  timestamp: number,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { id, role, content, timestamp, ...extra };
}

/** `POST /v1/sessions` as the operator; expects 201 and returns the row. */
export async function createSession(body: Record<string, unknown>): Promise<any> {
  const created = await call("POST", "/v1/sessions", { token: ADMIN, body });
  expect(created.status, created.text).toBe(201);
  return created.json;
}

/**
 * Creates a session through its Durable Object's own `create` RPC: the only way to set `spawnedBy`
 * before `sessions_spawn` exists. It is the real object, so the index row is written as usual.
 */
export async function createSpawned(init: CreateSessionInit): Promise<any> {
  const created = await sessionApi(env.SESSION, init.sessionKey).create(init);
  if (!created.ok) throw new Error(`create ${init.sessionKey}: ${created.message}`);
  return created.value;
}

/** `POST /v1/sessions/{key}/transcript`; expects 200 and returns the receipt. */
export async function importMessages(key: string, messages: unknown[]): Promise<any> {
  const imported = await call("POST", sessionPath(key, "/transcript"), { token: ADMIN, body: { messages } });
  expect(imported.status, imported.text).toBe(200);
  return imported.json;
}

/** `GET /v1/sessions/{key}/transcript.jsonl` as the operator: the status and the body's exact bytes. */
export async function exportJsonl(
  key: string,
): Promise<{ status: number; contentType: string; bytes: Uint8Array }> {
  const response = await exports.default.fetch(
    `http://switchboard.test${sessionPath(key, "/transcript.jsonl")}`,
    {
      headers: { Authorization: `Bearer ${ADMIN}` },
    },
  );
  return {
    status: response.status,
    contentType: response.headers.get("Content-Type") ?? "",
    bytes: new Uint8Array(await response.arrayBuffer()),
  };
}

/** The JSONL a transcript of these messages must export to: one `JSON.stringify` line each. */
export function jsonlBytes(messages: unknown[]): Uint8Array {
  return new TextEncoder().encode(messages.map((message) => `${JSON.stringify(message)}\n`).join(""));
}

/** `POST /v1/tools/{name}` as the operator acting for `requesterKey`. */
export function callTool(name: string, requesterKey: string, args: Record<string, unknown> = {}) {
  return call("POST", `/v1/tools/${name}`, {
    token: ADMIN,
    body: args,
    headers: { "X-Switchboard-Session": requesterKey },
  });
}

/** A tool call expected to succeed at the HTTP level (results may still be `forbidden`/`error`). */
export async function tool(name: string, requesterKey: string, args: Record<string, unknown> = {}) {
  const response = await callTool(name, requesterKey, args);
  expect(response.status, response.text).toBe(200);
  return response.json;
}

/** The keys of a `sessions_list` result, in order. */
export function keysOf(result: { sessions: { key: string }[] }): string[] {
  return result.sessions.map((row) => row.key);
}

/** The Worker's configuration document (wrangler.toml's default), changed by `change`. */
export function configWith(change: (document: any) => void): SwitchboardConfig {
  const document = JSON.parse(env.SWITCHBOARD_CONFIG);
  change(document);
  const parsed = parseConfig(JSON.stringify(document));
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.config;
}

/**
 * Runs a tool through the tool layer with another configuration: what `/v1/tools/{name}` does for an
 * operator call, minus HTTP (src/routes/tool-call.ts), against the same D1 and session objects.
 */
export async function toolWithConfig(
  config: SwitchboardConfig,
  name: string,
  requesterKey: string,
  args: Record<string, unknown> = {},
): Promise<any> {
  const requester = await resolveRequester(
    { kind: "operator" },
    { sessionKey: requesterKey },
    config,
    env.DB,
  );
  if (!requester.ok) throw new Error(requester.message);
  const outcome = await executeToolCall(toolContext(env, config, requester.requester), name, args);
  if (!outcome.ok) throw new Error(`${name}: ${outcome.message}`);
  return outcome.details;
}

/** An index row written straight into D1, for query-cost tests that need many sessions quickly. */
export interface SeedRow {
  sessionKey: string;
  agentId: string;
  kind?: string;
  updatedAt: number;
  spawnedBy?: string;
  label?: string;
  listState?: number;
}

/** Inserts index rows in one batch (what session objects would write, minus the optional columns). */
export async function seedIndexRows(rows: SeedRow[]): Promise<void> {
  const insert = env.DB.prepare(
    `INSERT INTO session_index (session_key, session_id, agent_id, kind, channel, created_at, updated_at,
       spawned_by, label, list_state, search_text, version)
     VALUES (?, ?, ?, ?, 'internal', ?, ?, ?, ?, ?, ?, 1)`,
  );
  await env.DB.batch(
    rows.map((row) =>
      insert.bind(
        row.sessionKey,
        crypto.randomUUID(),
        row.agentId,
        row.kind ?? "other",
        row.updatedAt,
        row.updatedAt,
        row.spawnedBy ?? null,
        row.label ?? null,
        row.listState ?? 0,
        row.sessionKey.toLowerCase(),
      ),
    ),
  );
}
