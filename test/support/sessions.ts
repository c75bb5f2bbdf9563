import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { expect } from "vitest";
import type { CreateSessionInit } from "../../src/session/api";
import { sessionApi } from "../../src/session/client";
import { fromColumns } from "../../src/storage/columns";
import { ADMIN } from "./auth";
import { BASE_URL, call, type HttpResult, sessionPath } from "./http";
import { UUID, uid } from "./ids";
import { shardOf } from "./shards";
import type { ImportReceipt, SessionRow } from "./wire";

/** The session object of a key, for the `cloudflare:test` helpers. */
export const stub = (key: string) => env.SESSION.getByName(key);

/** The session object of a key, for calling its RPC methods with their declared types. */
export const session = (key: string) => sessionApi(env.SESSION, key);

/** `POST /v1/sessions` as the operator; expects 201 and returns the row. */
export async function createSession(body: Record<string, unknown>): Promise<SessionRow> {
  const created = await call<SessionRow>("POST", "/v1/sessions", { token: ADMIN, body });
  expect(created.status, created.text).toBe(201);
  return created.json;
}

/**
 * Creates a session through its Durable Object's own `create` RPC: the only way to set `spawnedBy`
 * before `sessions_spawn` exists. It is the real object, so the index row is written as usual.
 */
export async function createSpawned(init: CreateSessionInit): Promise<SessionRow> {
  const created = await session(init.sessionKey).create(init);
  if (!created.ok) throw new Error(`create ${init.sessionKey}: ${created.message}`);
  return created.value;
}

/** `GET /v1/sessions/{key}` as the operator: the response as it is; `Body` is ApiError when expecting one. */
export function getSession<Body = SessionRow>(key: string): Promise<HttpResult<Body>> {
  return call<Body>("GET", sessionPath(key), { token: ADMIN });
}

/** The session row as its object describes it (with its sessionId). */
export async function describeSession(key: string) {
  const described = await session(key).describe();
  if (!described.ok) throw new Error(described.message);
  expect(described.value.sessionId).toMatch(UUID);
  return described.value;
}

/** Tears down a session's object instance (it is woken first, since only a live one can be evicted). */
export async function evict(key: string): Promise<void> {
  await session(key).describe();
  await evictDurableObject(stub(key));
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

/** `POST /v1/sessions/{key}/transcript`; expects 200 and returns the receipt. */
export async function importMessages(key: string, messages: unknown[]): Promise<ImportReceipt> {
  const imported = await call<ImportReceipt>("POST", sessionPath(key, "/transcript"), {
    token: ADMIN,
    body: { messages },
  });
  expect(imported.status, imported.text).toBe(200);
  return imported.json;
}

/**
 * A session of `agentId` whose only messages (a user's and a reply) are `ageDays` old: an import keeps
 * their age, so the maintenance policies (SPEC §23) take it for idle that long.
 */
export async function idleSession(agentId: string, ageDays: number): Promise<string> {
  const key = `agent:${agentId}:idle-${uid()}`;
  await createSession({ agentId, key });
  const at = Date.now() - ageDays * 86_400_000;
  await importMessages(key, [
    msg(`u-${uid()}`, "user", "hello", at),
    msg(`a-${uid()}`, "assistant", "hi", at + 1),
  ]);
  return key;
}

/** `GET /v1/sessions/{key}/transcript.jsonl` as the operator: the status and the body's exact bytes. */
export async function exportJsonl(
  key: string,
): Promise<{ status: number; contentType: string; bytes: Uint8Array }> {
  const response = await exports.default.fetch(`${BASE_URL}${sessionPath(key, "/transcript.jsonl")}`, {
    headers: { Authorization: `Bearer ${ADMIN}` },
  });
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

/** A stored transcript message, as the JSONL export gives it back. */
export interface StoredMessage {
  id: string;
  role: string;
  content: unknown;
  timestamp: number;
  provenance?: Record<string, unknown>;
  runId?: string;
  /** On tool results. */
  toolCallId?: string;
  toolName?: string;
}

/** Every stored message of a session, oldest first (the operator's exact JSONL export); expects 200. */
export async function transcript(key: string): Promise<StoredMessage[]> {
  const exported = await exportJsonl(key);
  expect(exported.status).toBe(200);
  return new TextDecoder()
    .decode(exported.bytes)
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as StoredMessage);
}

/**
 * Role and content of each stored message: the shape most assertions compare. An assistant message of
 * text blocks only (what runs write) reads as its text; test/session/transcript/transcript-shape.test.ts checks the
 * blocks themselves.
 */
export async function turns(key: string): Promise<[string, unknown][]> {
  return (await transcript(key)).map((message) => [message.role, assistantText(message) ?? message.content]);
}

/** The text of an assistant message whose content is text blocks only; undefined for anything else. */
export function assistantText(message: Pick<StoredMessage, "role" | "content">): string | undefined {
  const { role, content } = message;
  if (role !== "assistant" || !Array.isArray(content) || content.length === 0) return undefined;
  const texts = content.map((block: { type?: unknown; text?: unknown }) =>
    block.type === "text" && typeof block.text === "string" ? block.text : undefined,
  );
  return texts.every((text) => text !== undefined) ? texts.join("\n") : undefined;
}

/** `POST /v1/sessions/{key}/messages` as the operator (or `token`); expects 202 and returns the runId. */
export async function sendMessage(
  key: string,
  text: string,
  options: { idempotencyKey?: string; token?: string } = {},
): Promise<string> {
  const sent = await call<{ runId: string }>("POST", sessionPath(key, "/messages"), {
    token: options.token ?? ADMIN,
    body: { text, ...(options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {}) },
  });
  expect(sent.status, sent.text).toBe(202);
  expect(sent.json).toEqual({ runId: expect.any(String), status: "accepted" });
  return sent.json.runId;
}

/** A run row as the session object stores it, with the context its runtime was handed. */
export interface StoredRun {
  runId: string;
  status: string;
  deferred: number;
  context?: string;
  flow?: string;
  attempts: number;
  reply?: string;
  error?: string;
  triggerMessageId?: string;
}

/** The session's runs in arrival order, read from its SQLite storage. */
export function storedRuns(key: string): Promise<StoredRun[]> {
  return runInDurableObject(stub(key), (_instance, state) =>
    // A deleted (or never created) session's object holds no schema at all (SPEC §23): no runs.
    state.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'run'").toArray().length === 0
      ? []
      : state.storage.sql
          .exec(
            "SELECT run_id, status, deferred, context, flow, attempts, reply, error, trigger_message_id FROM run ORDER BY seq",
          )
          .toArray()
          .map((row) => fromColumns<StoredRun>(row)),
  );
}

/** The runIds the run index holds for a session (what GET /v1/runs/{runId} resolves through). */
export async function indexedRunIds(key: string): Promise<string[]> {
  const { results } = await shardOf(key)
    .prepare("SELECT run_id FROM run_index WHERE session_key = ? ORDER BY created_at, run_id")
    .bind(key)
    .all<{ run_id: string }>();
  return results.map((row) => row.run_id);
}

/** Pending entries of a session object's outbox. */
export function outboxSize(key: string): Promise<number> {
  return runInDurableObject(stub(key), (_instance, state) =>
    // A deleted session's object holds no schema at all (SPEC §23): it owes nothing.
    state.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'outbox'").toArray().length === 0
      ? 0
      : Number(state.storage.sql.exec("SELECT COUNT(*) AS n FROM outbox").one().n),
  );
}
