import {
  createExecutionContext,
  createMessageBatch,
  evictDurableObject,
  getQueueResult,
  runDurableObjectAlarm,
  runInDurableObject,
} from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import type { SwitchboardConfig } from "../../src/config/schema";
import worker from "../../src/index";
import type { Requester } from "../../src/policy/requester";
import type { QueueMessage } from "../../src/queue/messages";
import { sessionApi } from "../../src/session/client";
import { fromColumns } from "../../src/storage/columns";
import { toolContext } from "../../src/tools/context";
import { executeToolCall } from "../../src/tools/invoke";
import type { ToolContext } from "../../src/tools/types";
import { configWith, createSession, createSpawned, exportJsonl, tool, uid } from "../integration/fixtures";
import { ADMIN, call } from "../support/http";

export {
  configWith,
  createSession,
  createSpawned,
  sessionPath,
  tool,
  toolWithConfig,
  uid,
} from "../integration/fixtures";

/** The session object of a key, for the `cloudflare:test` helpers. */
export const stub = (key: string) => env.SESSION.getByName(key);

/** The session object of a key, for calling its RPC methods with their declared types. */
export const session = (key: string) => sessionApi(env.SESSION, key);

/** A stored transcript message, as the JSONL export gives it back. */
export interface StoredMessage {
  id: string;
  role: string;
  content: unknown;
  provenance?: Record<string, unknown>;
  runId?: string;
}

/** Every stored message of a session, oldest first (the operator's exact JSONL export). */
export async function transcript(key: string): Promise<StoredMessage[]> {
  const exported = await exportJsonl(key);
  expect(exported.status).toBe(200);
  return new TextDecoder()
    .decode(exported.bytes)
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as StoredMessage);
}

/** Role and text of each stored message: the shape most assertions compare. */
export async function turns(key: string): Promise<[string, unknown][]> {
  return (await transcript(key)).map((message) => [message.role, message.content]);
}

/** One channel delivery as the fake channel webhook received it (after checking its signature). */
export interface ChannelPost {
  headers: Record<string, string>;
  body: string;
  json: Record<string, unknown>;
}

/** What the fake channel webhook recorded for a session key, oldest first. */
export async function deliveries(sessionKey: string): Promise<ChannelPost[]> {
  const id = encodeURIComponent(`channel:${sessionKey}`);
  const response = await fetch(`${env.FAKE_SERVICES_URL}/recorded/${id}`);
  expect(response.status).toBe(200);
  return (await response.json()) as ChannelPost[];
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
}

/** The session's runs in arrival order, read from its SQLite storage. */
export function storedRuns(key: string): Promise<StoredRun[]> {
  return runInDurableObject(stub(key), (_instance, state) =>
    state.storage.sql
      .exec("SELECT run_id, status, deferred, context, flow, attempts, reply, error FROM run ORDER BY seq")
      .toArray()
      .map((row) => fromColumns<StoredRun>(row)),
  );
}

/** The runIds the run index holds for a session (what GET /v1/runs/{runId} resolves through). */
export async function indexedRunIds(key: string): Promise<string[]> {
  const { results } = await env.DB.prepare(
    "SELECT run_id FROM run_index WHERE session_key = ? ORDER BY created_at, rowid",
  )
    .bind(key)
    .all<{ run_id: string }>();
  return results.map((row) => row.run_id);
}

/**
 * Polls `probe` until it gives a value, running the due alarms of the sessions involved between tries.
 * Bounded by `timeoutMs`; no sleeps: each round is the alarms and the probe's own I/O.
 */
export async function driveUntil<T>(
  keys: string[],
  probe: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    for (const key of keys) await runDurableObjectAlarm(stub(key));
  }
}

/** Tears down a session's object instance (it is woken first, since only a live one can be evicted). */
export async function evict(key: string): Promise<void> {
  await session(key).describe();
  await evictDurableObject(stub(key));
}

/** `POST /v1/runs/{runId}/wait` as the operator. */
export async function waitRun(runId: string, timeoutMs = 10_000): Promise<any> {
  const response = await call("POST", `/v1/runs/${runId}/wait`, { token: ADMIN, body: { timeoutMs } });
  expect(response.status, response.text).toBe(200);
  return response.json;
}

/** `GET /v1/runs/{runId}` as the operator: the run, or undefined while the run index does not know it. */
export async function getRun(runId: string): Promise<any> {
  const response = await call("GET", `/v1/runs/${runId}`, { token: ADMIN });
  if (response.status === 404) return undefined;
  expect(response.status, response.text).toBe(200);
  return response.json;
}

/** `sessions_send` over HTTP as the operator acting for `requester`. */
export function send(requester: string, args: Record<string, unknown>): Promise<any> {
  return tool("sessions_send", requester, args);
}

/** The Worker's own configuration (test/support/test-config.ts), parsed. */
export function workerConfig(): SwitchboardConfig {
  return configWith(() => {});
}

/** A requester as the credential layer would fix it, for calls through the tool layer. */
export function requesterOf(sessionKey: string, extra: Partial<Requester> = {}): Requester {
  const agentId = /^agent:([^:]+):/.exec(sessionKey)?.[1] ?? "main";
  const sandboxed = workerConfig().agents.list.find((agent) => agent.id === agentId)?.sandbox ?? false;
  return { agentId, sessionKey, depth: 0, sandboxed, isSubagent: false, ...extra };
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
    enqueue: async (message) => {
      queued.push(structuredClone(message));
    },
  };
  return { ctx, queued };
}

/** Runs sessions_send through the tool layer (no HTTP) and returns its result. */
export async function sendWith(ctx: ToolContext, args: Record<string, unknown>): Promise<any> {
  const outcome = await executeToolCall(ctx, "sessions_send", args);
  if (!outcome.ok) throw new Error(`sessions_send: ${outcome.message}`);
  return outcome.details;
}

/** Hands queue messages to the Worker's queue handler as one batch; returns what it acked and retried. */
export async function deliverBatch(messages: { id: string; body: unknown; attempts?: number }[]) {
  const batch = createMessageBatch("switchboard-deliveries", [
    ...messages.map((message) => ({
      id: message.id,
      timestamp: new Date(),
      attempts: message.attempts ?? 1,
      body: message.body,
    })),
  ]);
  const ctx = createExecutionContext();
  await worker.queue(batch, env);
  return getQueueResult(batch, ctx);
}

/** Waits (driving the sessions' alarms) until the channel webhook has `count` posts for `sessionKey`. */
export function delivered(sessionKey: string, drive: string[], count = 1): Promise<ChannelPost[]> {
  return driveUntil(
    drive,
    async () => {
      const posts = await deliveries(sessionKey);
      return posts.length >= count ? posts : undefined;
    },
    `${count} channel post(s) for ${sessionKey}`,
  );
}

/**
 * Proves these texts, in this order, are all that was (or will be) posted for a session: a marker post
 * queued afterwards arrives right after them. The queue keeps order and the consumer takes a batch in
 * order, so an earlier post (or a duplicate) would have arrived before the marker. The marker is the
 * answer to an inbound command recorded straight on the object; it adds two transcript rows, so count
 * the transcript before calling this.
 */
export async function expectOnlyPosts(sessionKey: string, texts: string[]): Promise<void> {
  const marker = `marker ${crypto.randomUUID()}`;
  const recorded = await session(sessionKey).recordInbound({
    messageId: `marker-${crypto.randomUUID()}`,
    text: "/marker",
    provenance: { kind: "external_user" },
    replyTo: { channel: "discord", to: "group:marker" },
    runId: crypto.randomUUID(),
    answer: marker,
  });
  expect(recorded.ok).toBe(true);
  const posts = await driveUntil(
    [sessionKey],
    async () => {
      const seen = await deliveries(sessionKey);
      return seen.some((post) => post.json.text === marker) ? seen : undefined;
    },
    "the marker post",
  );
  expect(posts.map((post) => post.json.text)).toEqual([...texts, marker]);
}

/**
 * For `hook-async` sessions (the agent answers 202 and posts its result later): waits for the next run
 * of `key` waiting on its agent, and posts `text` as its result, as the agent would.
 */
export async function answerDeferred(
  key: string,
  text: string,
  drive: string[] = [key],
  beforeAnswer: () => Promise<void> = async () => {},
): Promise<string> {
  const waiting = () =>
    driveUntil(
      drive,
      async () => (await storedRuns(key)).find((row) => row.status === "running" && row.deferred === 1),
      `a deferred run on ${key}`,
    );
  const run = await waiting();
  await beforeAnswer();
  // Whatever happened meanwhile (a restart), the same run is still the one waiting for its agent.
  expect((await waiting()).runId).toBe(run.runId);
  const completed = await session(key).completeDeferredRun(run.runId, { text });
  expect(completed).toMatchObject({ ok: true, value: { status: "ok" } });
  return run.runId;
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A failed send: exactly `{ runId, status, error, sessionKey? }`, with a fresh runId no run carries. */
export async function expectFailure(
  result: any,
  expected: { status: "error" | "forbidden"; error: string; sessionKey?: string },
): Promise<void> {
  expect(result).toEqual({ runId: expect.stringMatching(UUID), ...expected });
  expect(await getRun(result.runId)).toBeUndefined();
}

/** Nothing was written for this session: no message, no run. */
export async function expectUntouched(key: string): Promise<void> {
  expect(await transcript(key)).toEqual([]);
  expect(await storedRuns(key)).toEqual([]);
  expect(await indexedRunIds(key)).toEqual([]);
}

/** A main-agent requester and a child it spawned (labelled `kid-<u>`). */
export async function family(prefix: string) {
  const u = uid();
  const requester = `agent:main:${prefix}-r-${u}`;
  const child = `agent:main:${prefix}-c-${u}`;
  await createSession({ agentId: "main", key: requester });
  await createSpawned({ sessionKey: child, agentId: "main", spawnedBy: requester, label: `kid-${u}` });
  return { u, requester, child };
}

/** The session row as its object describes it (with its sessionId). */
export async function describeSession(key: string) {
  const described = await session(key).describe();
  if (!described.ok) throw new Error(described.message);
  expect(described.value.sessionId).toMatch(UUID);
  return described.value;
}
