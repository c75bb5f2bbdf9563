import { keyOptionsOf } from "../config/key-options";
import type { SwitchboardConfig } from "../config/schema";
import { mainSessionKey } from "../keys";
import type { ReplyTarget } from "../session/api";
import { sessionApi } from "../session/client";

/** A delivery as cron jobs and hooks configure it (SPEC §22); an announce's chat parts are optional. */
interface Delivery {
  mode: string;
  channel?: string | undefined;
  to?: string | undefined;
}

/** Where a run's answer is announced: a chat, the target's own channel, or nowhere (no chat known). */
export interface AnnounceAddress {
  replyTo?: ReplyTarget;
  ownChannel?: true;
  deliverTo?: string;
}

/**
 * Where an announce goes (SPEC §22, cron jobs and hooks alike): the channel and chat given; else the
 * target's own channel (main, `session:<key>`); else, for an isolated run, the channel the agent's main
 * session last used.
 */
export async function announceAddress(
  env: Env,
  config: SwitchboardConfig,
  work: { agentId: string; sessionTarget: string; delivery: Delivery },
): Promise<AnnounceAddress> {
  const { delivery } = work;
  if (delivery.mode !== "announce") return {};
  const { channel, to } = delivery;
  if (channel && to) return { replyTo: { channel, to }, deliverTo: `${channel}:${to}` };
  if (work.sessionTarget !== "isolated") return { ownChannel: true, deliverTo: "this session's channel" };
  const main = await sessionApi(env.SESSION, mainSessionKey(work.agentId, keyOptionsOf(config))).describe();
  const row = main.ok ? main.value : undefined;
  const last =
    row?.deliveryContext ??
    (row?.lastChannel && row.lastTo ? { channel: row.lastChannel, to: row.lastTo } : undefined);
  if (!last || (channel && channel !== last.channel)) return {};
  const replyTo = { ...last, ...(to ? { to } : {}) };
  return { replyTo, deliverTo: `${replyTo.channel}:${replyTo.to}` };
}
