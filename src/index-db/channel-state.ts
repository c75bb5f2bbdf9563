import type { IndexDb } from "./shards";
/** A platform bot's identity as stored (SPEC §21 groups: who "the bot" is in a mention or a reply). */
export interface StoredBotIdentity {
  id: string;
  username?: string;
}

/** What a verified inbound request came to, as the channel's status shows it. */
export type InboundOutcome =
  | "accepted"
  | "context"
  | "command"
  | "blocked"
  | "dropped"
  | "ignored"
  | "duplicate";

/** The bot identity read with this token (fingerprint), if one was stored. */
export async function readBotIdentity(
  db: IndexDb,
  channel: string,
  fingerprint: string,
): Promise<StoredBotIdentity | undefined> {
  const row = await db
    .prepare("SELECT bot_id, bot_username FROM channel_state WHERE channel = ? AND token_fingerprint = ?")
    .bind(channel, fingerprint)
    .first<{ bot_id: string | null; bot_username: string | null }>();
  if (!row?.bot_id) return undefined;
  return { id: row.bot_id, ...(row.bot_username ? { username: row.bot_username } : {}) };
}

/** Stores the bot identity read with this token. */
export async function writeBotIdentity(
  db: IndexDb,
  channel: string,
  fingerprint: string,
  identity: StoredBotIdentity,
  now: number,
): Promise<void> {
  await db
    .prepare(
      `INSERT INTO channel_state (channel, token_fingerprint, bot_id, bot_username, identity_at)
       VALUES (?1, ?2, ?3, ?4, ?5)
       ON CONFLICT (channel) DO UPDATE SET token_fingerprint = ?2, bot_id = ?3, bot_username = ?4,
         identity_at = ?5`,
    )
    .bind(channel, fingerprint, identity.id, identity.username ?? null, now)
    .run();
}

/** Notes the channel's last inbound request; an ignored one counts, with its reason. */
export async function noteInbound(
  db: IndexDb,
  channel: string,
  outcome: InboundOutcome,
  now: number,
  ignoredReason?: string,
): Promise<void> {
  const ignored = outcome === "ignored" ? 1 : 0;
  await db
    .prepare(
      `INSERT INTO channel_state (channel, last_inbound_at, last_inbound_outcome, last_ignored_reason, ignored_count)
       VALUES (?1, ?2, ?3, ?4, ?5)
       ON CONFLICT (channel) DO UPDATE SET last_inbound_at = ?2, last_inbound_outcome = ?3,
         last_ignored_reason = COALESCE(?4, last_ignored_reason), ignored_count = ignored_count + ?5`,
    )
    .bind(channel, now, outcome, ignoredReason ?? null, ignored)
    .run();
}

/** The channel's inbound state, as `channels status` (and the tests) read it. */
export async function readInboundState(
  db: IndexDb,
  channel: string,
): Promise<
  | { lastInboundAt?: number; lastOutcome?: string; lastIgnoredReason?: string; ignoredCount: number }
  | undefined
> {
  const row = await db
    .prepare(
      `SELECT last_inbound_at, last_inbound_outcome, last_ignored_reason, ignored_count
       FROM channel_state WHERE channel = ?`,
    )
    .bind(channel)
    .first<{
      last_inbound_at: number | null;
      last_inbound_outcome: string | null;
      last_ignored_reason: string | null;
      ignored_count: number;
    }>();
  if (!row) return undefined;
  return {
    ...(row.last_inbound_at !== null ? { lastInboundAt: row.last_inbound_at } : {}),
    ...(row.last_inbound_outcome !== null ? { lastOutcome: row.last_inbound_outcome } : {}),
    ...(row.last_ignored_reason !== null ? { lastIgnoredReason: row.last_ignored_reason } : {}),
    ignoredCount: row.ignored_count,
  };
}

/** A channel's row as the console's channel list shows it: its inbound state and the bot it cached. */
export interface ChannelStateRow {
  channel: string;
  botId?: string;
  botUsername?: string;
  lastInboundAt?: number;
  lastOutcome?: string;
  ignoredCount: number;
}

/** Every channel's row (one per configured channel at most: the table is keyed by channel name). */
export async function readChannelStates(db: IndexDb): Promise<Map<string, ChannelStateRow>> {
  const { results } = await db
    .prepare(
      "SELECT channel, bot_id, bot_username, last_inbound_at, last_inbound_outcome, ignored_count FROM channel_state",
    )
    .all<{
      channel: string;
      bot_id: string | null;
      bot_username: string | null;
      last_inbound_at: number | null;
      last_inbound_outcome: string | null;
      ignored_count: number;
    }>();
  return new Map(
    results.map((row) => [
      row.channel,
      {
        channel: row.channel,
        ...(row.bot_id !== null ? { botId: row.bot_id } : {}),
        ...(row.bot_username !== null ? { botUsername: row.bot_username } : {}),
        ...(row.last_inbound_at !== null ? { lastInboundAt: row.last_inbound_at } : {}),
        ...(row.last_inbound_outcome !== null ? { lastOutcome: row.last_inbound_outcome } : {}),
        ignoredCount: row.ignored_count,
      },
    ]),
  );
}
