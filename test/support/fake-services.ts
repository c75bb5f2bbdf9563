import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { driveUntil } from "./drive";

/** One request as the fake services (fake-services-server.ts) received it. */
export interface RecordedRequest {
  method: string;
  path: string;
  /** Lower-case header names. */
  headers: Record<string, string>;
  /** The raw body, byte for byte as sent (signatures are over it). */
  body: string;
  json: any;
}

/** The fake services' base URL (a miniflare binding set by vitest.config.ts). */
export function fakeServicesUrl(): string {
  if (!env.FAKE_SERVICES_URL) throw new Error("vitest.config.ts must bind FAKE_SERVICES_URL");
  return env.FAKE_SERVICES_URL;
}

/** What the fake services recorded under `rec-<id>` (the recorded test agents use their agent id), oldest first. */
export async function recorded(id: string): Promise<RecordedRequest[]> {
  const response = await fetch(`${fakeServicesUrl()}/recorded/${encodeURIComponent(id)}`);
  expect(response.status).toBe(200);
  return (await response.json()) as RecordedRequest[];
}

/** A fresh recording: put `segment` in a fake-services path, then read what was sent with `requests()`. */
export function newRecording(): { segment: string; requests: () => Promise<RecordedRequest[]> } {
  const id = crypto.randomUUID();
  return { segment: `rec-${id}`, requests: () => recorded(id) };
}

/** The channel posts the fake channel webhook accepted a signature for, for one session key, oldest first. */
export const deliveries = (sessionKey: string) => recorded(`channel:${sessionKey}`);

/**
 * Waits until the fake channel webhook has at least `count` posts for `sessionKey`, running the alarms of
 * the sessions in `drive` between looks (see drive.ts); throws if they do not arrive in time.
 */
export function delivered(sessionKey: string, count = 1, drive: string[] = []): Promise<RecordedRequest[]> {
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
export async function webhookPosts(recordId: string, sessionKey: string): Promise<any[]> {
  return (await recorded(recordId))
    .map((post) => post.json)
    .filter((json) => json?.sessionKey === sessionKey);
}

/** The bodies of the model requests a recorded openai agent received whose messages mention `marker`. */
export async function modelRequests(recordId: string, marker: string): Promise<any[]> {
  return (await recorded(recordId))
    .map((post) => post.json)
    .filter((json) => JSON.stringify(json?.messages ?? []).includes(marker));
}
