import { exports } from "cloudflare:workers";
import { expect } from "vitest";
import { signatureHeader } from "../../src/channels/signature";
import { channelSecret } from "./auth";
import { driveUntil } from "./drive";
import { deliveries } from "./fake-services";
import { BASE_URL, type HttpResult, readResult } from "./http";
import { session } from "./sessions";
import type { Loose } from "./wire";

/** What `POST /v1/channels/{channel}/messages` answers when it takes a message (src/routes/v1/channels.ts). */
export type InboundAnswer = Loose<
  | { status: "accepted"; runId: string; sessionKey: string; duplicate: boolean }
  | { status: "blocked"; sessionKey: string; error: string }
  | { status: "command"; sessionKey: string; sendPolicy: string; duplicate: boolean }
>;

/** An inbound channel message body (SPEC §8): a direct "hello" from `someone` unless told otherwise. */
export function inbound(fields: Record<string, unknown>): Record<string, unknown> {
  return { chatType: "direct", senderId: "someone", text: "hello", ...fields };
}

/**
 * `POST /v1/channels/{channel}/messages`, signed with the channel's secret at `unixSeconds` (default now).
 * `Body` is what the caller expects back: an `InboundAnswer` unless told (ApiError for a refusal).
 */
export async function postInbound<Body = InboundAnswer>(
  channel: string,
  body: Record<string, unknown> | string,
  options: { unixSeconds?: number; secret?: string; signature?: string } = {},
): Promise<HttpResult<Body>> {
  const raw = typeof body === "string" ? body : JSON.stringify(body);
  const signature =
    options.signature ??
    (await signatureHeader(options.secret ?? (await channelSecret(channel)), raw, options.unixSeconds));
  const response = await exports.default.fetch(`${BASE_URL}/v1/channels/${channel}/messages`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Switchboard-Signature": signature },
    body: raw,
  });
  return readResult<Body>(response);
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
