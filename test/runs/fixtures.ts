import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { expect } from "vitest";
import { deriveKey } from "../../src/auth/purpose-keys";
import { signatureHeader } from "../../src/channels/signature";
import { exportJsonl, sessionPath } from "../integration/fixtures";
import type { RecordedRequest } from "../support/fake-services";
import { ADMIN, call } from "../support/http";

export { createSession, createSpawned, sessionPath, tool, uid } from "../integration/fixtures";

/** The test binding SWITCHBOARD_SIGNING_KEY: the root of every derived key (run tokens, channels). */
export const SIGNING_KEY = "test-signing-key-0123456789abcdef";

/** The secret the service derives for a channel without `secretEnv`: signs its posts both ways. */
export const channelSecret = (channel: string) => deriveKey(SIGNING_KEY, { use: "channel", channel });

/** The secret the service derives for a webhook agent without `secretEnv`. */
export const webhookAgentSecret = (agentId: string) =>
  deriveKey(SIGNING_KEY, { use: "webhook-agent", agentId });

/** The session object of a key. */
export const stub = (key: string) => env.SESSION.getByName(key);

/** `POST /v1/sessions/{key}/messages` as the operator (or `token`); expects 202 and returns the runId. */
export async function sendMessage(
  key: string,
  text: string,
  options: { idempotencyKey?: string; token?: string } = {},
): Promise<string> {
  const sent = await call("POST", sessionPath(key, "/messages"), {
    token: options.token ?? ADMIN,
    body: { text, ...(options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {}) },
  });
  expect(sent.status, sent.text).toBe(202);
  expect(sent.json).toEqual({ runId: expect.any(String), status: "accepted" });
  return sent.json.runId;
}

/** `GET /v1/runs/{runId}` as the operator; expects 200. */
export async function getRun(runId: string): Promise<any> {
  const run = await call("GET", `/v1/runs/${runId}`, { token: ADMIN });
  expect(run.status, run.text).toBe(200);
  return run.json;
}

/** `POST /v1/runs/{runId}/wait`: waits server-side for the run (the only way tests wait for a run). */
export async function waitRun(runId: string, timeoutMs = 10_000, token = ADMIN): Promise<any> {
  const waited = await call("POST", `/v1/runs/${runId}/wait`, { token, body: { timeoutMs } });
  expect(waited.status, waited.text).toBe(200);
  return waited.json;
}

/** Polls the run (bounded) until `accept` says yes: for states between start and end, like `running`. */
export async function pollRun(runId: string, accept: (run: any) => boolean, tries = 500): Promise<any> {
  for (let attempt = 0; attempt < tries; attempt++) {
    const run = await getRun(runId);
    if (accept(run)) return run;
    // Let the object's alarm make progress if it is due; a no-op when nothing is scheduled yet.
    if (attempt % 10 === 9) await scheduler.wait(10);
  }
  throw new Error(`run ${runId} never reached the expected state`);
}

/** Every stored message of a session, oldest first (the operator's exact JSONL export). */
export async function transcript(key: string): Promise<any[]> {
  const exported = await exportJsonl(key);
  expect(exported.status).toBe(200);
  return new TextDecoder()
    .decode(exported.bytes)
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line));
}

/** Role and content of each stored message. */
export async function turns(key: string): Promise<[string, unknown][]> {
  return (await transcript(key)).map((message) => [message.role, message.content]);
}

/** What the fake services recorded under `rec-<id>` (the recorded test agents use their agent id). */
export async function recorded(id: string): Promise<RecordedRequest[]> {
  const response = await fetch(`${env.FAKE_SERVICES_URL}/recorded/${encodeURIComponent(id)}`);
  expect(response.status).toBe(200);
  return (await response.json()) as RecordedRequest[];
}

/** The channel posts the fake channel webhook accepted a signature for, for one session key. */
export const deliveries = (sessionKey: string) => recorded(`channel:${sessionKey}`);

/**
 * Waits (bounded) until the fake channel webhook has `count` posts for a session: deliveries go through
 * the real Queue, whose consumer runs on its own schedule, so there is nothing to drive but to look again.
 */
export async function waitForDeliveries(sessionKey: string, count: number): Promise<RecordedRequest[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const posts = await deliveries(sessionKey);
    if (posts.length >= count || Date.now() > deadline) return posts;
    await scheduler.wait(25);
  }
}

/** Runs the session's alarm while it is due (bounded), so what the object owes others is delivered. */
export async function drainAlarms(key: string): Promise<void> {
  for (let round = 0; round < 20; round++) {
    const due = await runInDurableObject(stub(key), (_instance, state) => state.storage.getAlarm());
    if (due === null || due > Date.now()) return;
    await runDurableObjectAlarm(stub(key));
  }
  throw new Error(`session ${key} still had alarms due after 20 rounds`);
}

/** An inbound channel message body (SPEC §8), with unique ids unless given. */
export function inbound(fields: Record<string, unknown>): Record<string, unknown> {
  return { chatType: "direct", senderId: "someone", text: "hello", ...fields };
}

/** `POST /v1/channels/{channel}/messages`, signed with the channel's secret at `unixSeconds` (default now). */
export async function postInbound(
  channel: string,
  body: Record<string, unknown> | string,
  options: { unixSeconds?: number; secret?: string; signature?: string } = {},
): Promise<{ status: number; json: any; text: string }> {
  const raw = typeof body === "string" ? body : JSON.stringify(body);
  const signature =
    options.signature ??
    (await signatureHeader(options.secret ?? (await channelSecret(channel)), raw, options.unixSeconds));
  const response = await exports.default.fetch(`http://switchboard.test/v1/channels/${channel}/messages`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Switchboard-Signature": signature },
    body: raw,
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, json, text };
}

/** Parses a tool result's JSON text as the transcript stores it (`[{ type: "text", text }]`). */
export function toolResultJson(message: { content: unknown }): any {
  const blocks = message.content as { type: string; text: string }[];
  return JSON.parse(blocks[0]?.text ?? "null");
}
