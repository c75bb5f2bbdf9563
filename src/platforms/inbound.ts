import type { Platform } from "../config/schema";
import { discordInbound } from "./discord/inbound";
import type { PlatformInbound } from "./platform";
import { slackInbound } from "./slack/inbound";
import { telegramInbound } from "./telegram/inbound";

/** Each chat platform's inbound half (SPEC §21), by the channel's `platform`. */
export const PLATFORM_INBOUND: Record<Exclude<Platform, "webhook">, PlatformInbound> = {
  telegram: telegramInbound,
  slack: slackInbound,
  discord: discordInbound,
};
