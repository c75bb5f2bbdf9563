import type { SwitchboardConfig } from "../config/schema";
import type { BotIdentity, InboundUpdate, PlatformMessage } from "./inbound-types";

/** One channel's settings (SPEC §21 channel keys). */
export type ChannelSettings = SwitchboardConfig["channels"][string];

/** What a platform's request is checked and read with: its headers and its exact bytes. */
export interface InboundRequest {
  channel: string;
  settings: ChannelSettings;
  headers: Headers;
  raw: string;
  now: number;
}

/** A secret the platform needs is not set: the operator's mistake, said without the secret. */
export type VerifyResult = { ok: true } | { ok: false; missing?: string };

/**
 * One platform's inbound half (an adapter: the route never knows which platform it talks to): verify
 * the request, map it, learn who the bot is, and clean a message's text once the bot is known.
 */
export interface PlatformInbound {
  verify(env: Env, request: InboundRequest): Promise<VerifyResult>;
  map(body: unknown, request: InboundRequest): InboundUpdate;
  identity(env: Env, request: InboundRequest): Promise<BotIdentity | undefined>;
  readableText(message: PlatformMessage, bot: BotIdentity | undefined): string;
  /** What a forum's or a platform's thread is called in session keys (`:topic:` on Telegram only). */
  threadKind: "topic" | "thread";
  /** How a message that starts nothing (allowFrom) is answered when the platform wants an answer. */
  refusal?: () => Response;
}

/** A thread opened on a platform (its id: a Telegram topic, a Slack `ts`, a Discord thread channel), or why not. */
export type ThreadOpened = { ok: true; threadId: string } | { ok: false; error: string };
