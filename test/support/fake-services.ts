import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { driveUntil } from "./drive";
import type { ChannelPost, ModelRequest, WebhookPost } from "./wire";

/** One request as the fake services (fake-services-server.ts) received it; `Body` is what its JSON is. */
export interface RecordedRequest<Body = unknown> {
  method: string;
  path: string;
  /** Lower-case header names. */
  headers: Record<string, string>;
  /** The raw body, byte for byte as sent (signatures are over it). */
  body: string;
  /** The body parsed, or undefined if it is not JSON. */
  json: Body;
}

/** The fake services' base URL (a miniflare binding set by vitest.config.ts). */
export function fakeServicesUrl(): string {
  if (!env.FAKE_SERVICES_URL) throw new Error("vitest.config.ts must bind FAKE_SERVICES_URL");
  return env.FAKE_SERVICES_URL;
}

/**
 * What the fake services recorded under `rec-<id>`, oldest first; `Body` is what the caller knows the
 * requests to be (the recorded test agents record under their agent id: see `modelCalls`, `webhookCalls`).
 */
export async function recorded<Body = unknown>(id: string): Promise<RecordedRequest<Body>[]> {
  const response = await fetch(`${fakeServicesUrl()}/recorded/${encodeURIComponent(id)}`);
  expect(response.status).toBe(200);
  return response.json<RecordedRequest<Body>[]>();
}

/**
 * Waits for the outside call itself: answers once the fake services recorded `count` requests under
 * `rec-<id>` whose raw body contains `marker` (any, when empty), and returns those, oldest first. The
 * fake services hold the request open until then (fake-services-signals.ts); throws after 15 s.
 */
export async function callsArrived<Body = unknown>(
  id: string,
  count: number,
  marker = "",
): Promise<RecordedRequest<Body>[]> {
  const query = new URLSearchParams({ count: String(count), marker });
  const response = await fetch(`${fakeServicesUrl()}/signal/${encodeURIComponent(id)}?${query}`);
  if (response.status !== 200)
    throw new Error(`${count} call(s) under rec-${id} never arrived: ${await response.text()}`);
  return response.json<RecordedRequest<Body>[]>();
}

/** The Chat Completions requests a recorded openai agent (or recording) received, oldest first. */
export const modelCalls = (recordId: string) => recorded<ModelRequest>(recordId);

/** The runs a recorded webhook agent (or recording) was posted, oldest first. */
export const webhookCalls = (recordId: string) => recorded<WebhookPost>(recordId);

/** A fresh recording: put `segment` in a fake-services path, then read what was sent with `requests()`. */
export function newRecording<Body = unknown>(): {
  segment: string;
  requests: () => Promise<RecordedRequest<Body>[]>;
} {
  const id = crypto.randomUUID();
  return { segment: `rec-${id}`, requests: () => recorded<Body>(id) };
}

/** The channel posts the fake channel webhook accepted a signature for, for one session key, oldest first. */
export const deliveries = (sessionKey: string) => recorded<ChannelPost>(`channel:${sessionKey}`);

/**
 * Waits until the fake channel webhook has at least `count` posts for `sessionKey`, running the alarms of
 * the sessions in `drive` between looks (see drive.ts); throws if they do not arrive in time.
 */
export function delivered(
  sessionKey: string,
  count = 1,
  drive: string[] = [],
): Promise<RecordedRequest<ChannelPost>[]> {
  return driveUntil(
    drive,
    async () => {
      const posts = await deliveries(sessionKey);
      return posts.length >= count ? posts : undefined;
    },
    `${count} channel post(s) for ${sessionKey}`,
  );
}

/** The bodies of the webhook posts a recorded agent (`rec-<id>`) received for one session, oldest first. */
export async function webhookPosts(recordId: string, sessionKey: string): Promise<WebhookPost[]> {
  return (await webhookCalls(recordId))
    .map((post) => post.json)
    .filter((json) => json?.sessionKey === sessionKey);
}

/** The bodies of the model requests a recorded openai agent received whose messages mention `marker`. */
export async function modelRequests(recordId: string, marker: string): Promise<ModelRequest[]> {
  return (await modelCalls(recordId))
    .map((post) => post.json)
    .filter((json) => JSON.stringify(json?.messages ?? []).includes(marker));
}
