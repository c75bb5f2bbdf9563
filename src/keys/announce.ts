import { parseSessionKey } from "./parse";
import type { KeyOptions } from "./types";

/** Where a session's announces go, as far as its key can tell (SPEC §8). */
export interface AnnounceTarget {
  channel: string;
  to: string;
  threadId?: string;
}

// Telegram addresses every chat by its bare numeric chat id; other channels' delivery webhooks get the
// chat type as well, so one id space can hold groups, channels and direct peers.
const BARE_CHAT_ID_CHANNELS: ReadonlySet<string> = new Set(["telegram"]);

/**
 * The announce target parsed from a channel chat key; undefined for non-channel keys (main, cron, hook,
 * node, sub-agents, the shared `global` session), whose target is their delivery context.
 *
 * - `<ch>:group|channel:<id>` → `to: "<group|channel>:<id>"`; `<ch>:direct|dm:<peer>` → `to: "direct:<peer>"`
 * - on Telegram, `to` is the bare chat id or peer id
 * - a `:thread:<id>` or `:topic:<id>` suffix becomes `threadId` on every channel
 */
export function announceTargetFromKey(key: string, options: KeyOptions): AnnounceTarget | undefined {
  const parsed = parseSessionKey(key, options);
  if (!parsed?.channel || !parsed.chatType || !parsed.chatId) return undefined;
  const to = BARE_CHAT_ID_CHANNELS.has(parsed.channel)
    ? parsed.chatId
    : `${parsed.chatType}:${parsed.chatId}`;
  const target: AnnounceTarget = { channel: parsed.channel, to };
  if (parsed.threadId !== undefined) target.threadId = parsed.threadId;
  return target;
}
