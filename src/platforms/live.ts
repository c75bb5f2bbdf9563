import type { SwitchboardConfig } from "../config/schema";
import { readSecret } from "../config/secrets";
import { discordLive } from "./discord/live";
import type { LiveTarget, PlatformLive } from "./live-types";
import { slackLive } from "./slack/live";
import { telegramLive } from "./telegram/live";

export type { LiveTarget, PlatformLive } from "./live-types";

/** The live half for a reply target on a platform channel; undefined for a webhook channel or no token. */
export function platformLive(
  env: Env,
  config: SwitchboardConfig,
  target: LiveTarget,
  now = Date.now(),
): PlatformLive | undefined {
  const channel = config.channels[target.channel];
  if (!channel || channel.platform === "webhook") return undefined;
  const token = channel.botTokenEnv ? readSecret(env, channel.botTokenEnv) : undefined;
  if (!token) return undefined;
  switch (channel.platform) {
    case "telegram":
      return telegramLive(token, channel.apiBaseUrl, target);
    case "slack":
      return slackLive(token, channel.apiBaseUrl, target);
    default:
      return discordLive(
        { token, applicationId: channel.applicationId ?? "", apiBaseUrl: channel.apiBaseUrl },
        target,
        now,
      );
  }
}

/** A channel's `streaming`: `edit` by default on every platform (each can edit its own message). */
export function streamingOf(config: SwitchboardConfig, channel: string): "edit" | "off" {
  return config.channels[channel]?.streaming ?? "edit";
}
