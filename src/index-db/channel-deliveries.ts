import type { DeliveryStatus } from "../session/api";
import { everyShard, type IndexShards } from "./shards";

/** A channel's most recent delivery that went wrong, as `channels status` shows it (SPEC §21). */
export interface ChannelDeliveryError {
  deliveryId: string;
  sessionKey: string;
  target: string;
  status: DeliveryStatus;
  lastError: string;
  updatedAt: number;
}

/**
 * The newest record posted to `channel` (an announce or a reply, target `channel:to[#thread]`) whose last
 * attempt failed, on every shard (any agent's session may post to it), each by the
 * `delivery_index_target` range `channel:` up to `channel;` (";" follows ":"), never the whole table.
 */
export async function lastChannelDeliveryError(
  shards: IndexShards,
  channel: string,
): Promise<ChannelDeliveryError | undefined> {
  const rows = await everyShard(shards, async (db) =>
    db
      .prepare(
        `SELECT delivery_id, session_key, target, status, last_error, updated_at FROM delivery_index
         WHERE target >= ?1 AND target < ?2 AND kind IN ('announce', 'reply') AND last_error IS NOT NULL
         ORDER BY updated_at DESC LIMIT 1`,
      )
      .bind(`${channel}:`, `${channel};`)
      .first<{
        delivery_id: string;
        session_key: string;
        target: string;
        status: DeliveryStatus;
        last_error: string;
        updated_at: number;
      }>(),
  );
  const newest = rows.flatMap((row) => (row ? [row] : [])).sort((a, b) => b.updated_at - a.updated_at)[0];
  return newest
    ? {
        deliveryId: newest.delivery_id,
        sessionKey: newest.session_key,
        target: newest.target,
        status: newest.status,
        lastError: newest.last_error,
        updatedAt: newest.updated_at,
      }
    : undefined;
}

/**
 * How many posts to `channel` wait on the operator (`failed` or `suspended`), on every shard, by the same
 * target range: the console's channel list shows it beside the last error.
 */
export async function channelStuckCount(shards: IndexShards, channel: string): Promise<number> {
  const counts = await everyShard(shards, async (db) =>
    db
      .prepare(
        `SELECT COUNT(*) AS n FROM delivery_index
         WHERE target >= ?1 AND target < ?2 AND kind IN ('announce', 'reply') AND status IN ('failed', 'suspended')`,
      )
      .bind(`${channel}:`, `${channel};`)
      .first<{ n: number }>(),
  );
  return counts.reduce((sum, row) => sum + (row?.n ?? 0), 0);
}
