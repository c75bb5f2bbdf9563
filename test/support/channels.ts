import { exports } from "cloudflare:workers";
import { expect } from "vitest";
import { parseSendCommand, sendCommandConfirmation } from "../../src/channels/send-command";
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

/** The `/send` word that sets a session's send policy to what it is (so the command changes nothing). */
const SAME_POLICY = { allow: "on", deny: "off", none: "inherit" } as const;

/**
 * Proves these texts, in this order, are all that was (or will be) posted for a session: a marker post
 * queued afterwards arrives right after them. The queue keeps order and the consumer takes a batch in
 * order, so an earlier post (or a duplicate) would have arrived before the marker. The marker is the
 * confirmation of an owner's `/send` command that keeps the session's policy as it is, taken the way the
 * inbound route takes it (`acceptInbound`, a direct chat's peer being an owner); it adds two transcript
 * rows, so count the transcript before calling this.
 */
export async function expectOnlyPosts(sessionKey: string, texts: string[]): Promise<void> {
  const described = await session(sessionKey).describe();
  if (!described.ok) throw new Error(`no session ${sessionKey}: ${JSON.stringify(described)}`);
  const word = SAME_POLICY[described.value.sendPolicy ?? "none"];
  const command = parseSendCommand(`/send ${word}`);
  if (!command) throw new Error(`"/send ${word}" is not a command`);
  const marker = sendCommandConfirmation(command);
  const replyTo = { channel: "discord", to: "direct:marker" };
  const accepted = await session(sessionKey).acceptInbound({
    init: {
      sessionKey,
      agentId: described.value.agentId,
      channel: "discord",
      chatType: "direct",
      deliveryContext: replyTo,
    },
    channelMessageId: `marker-${crypto.randomUUID()}`,
    text: `/send ${word}`,
    senderId: "marker",
    runId: crypto.randomUUID(),
  });
  expect(accepted).toMatchObject({ ok: true, value: { status: "command", duplicate: false } });
  const before = texts.filter((text) => text === marker).length;
  const posts = await driveUntil(
    [sessionKey],
    async () => {
      const seen = await deliveries(sessionKey);
      return seen.filter((post) => post.json.text === marker).length > before ? seen : undefined;
    },
    "the marker post",
  );
  expect(posts.map((post) => post.json.text)).toEqual([...texts, marker]);
}
