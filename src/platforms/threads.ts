import type { SwitchboardConfig } from "../config/schema";
import { readSecret } from "../config/secrets";
import { openDiscordThread } from "./discord/thread";
import type { ThreadOpened } from "./platform";
import { openSlackThread } from "./slack/thread";
import { openTelegramTopic } from "./telegram/thread";

/** What a sub-agent's thread is opened with: the chat it hangs off, and what the task is called. */
export interface ThreadRequest {
  channel: string;
  /** The chat's id as the platform spells it (the recorded delivery context's `to`). */
  to: string;
  /** The task or label: the thread's name and the bot's message about it. */
  title: string;
}

// A session's `to` may name the chat's type (`group:…`); the platform's API takes the bare id.
const chatIdOf = (to: string) => to.replace(/^(group|channel|direct|dm):/, "");

/** Names a task in one line, short enough for any platform's thread name. */
const oneLine = (text: string, max: number) => {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

/**
 * Opens a real thread for a sub-agent on a platform channel (SPEC §21 threads for sub-agents): a forum
 * topic on Telegram, a thread under a message the bot posts on Slack and Discord. The token stays here:
 * an error is the platform's own description with it masked.
 */
export async function openPlatformThread(
  env: Env,
  config: SwitchboardConfig,
  request: ThreadRequest,
): Promise<ThreadOpened> {
  const channel = config.channels[request.channel];
  if (!channel || channel.platform === "webhook")
    return { ok: false, error: `channel "${request.channel}" is not a chat platform with threads` };
  const token = channel.botTokenEnv ? readSecret(env, channel.botTokenEnv) : undefined;
  if (!token) return { ok: false, error: `channel "${request.channel}": its bot token secret is not set` };
  const chatId = chatIdOf(request.to);
  const name = oneLine(request.title, 100);
  const text = `Sub-agent task: ${oneLine(request.title, 300)}`;
  switch (channel.platform) {
    case "telegram":
      return openTelegramTopic(token, channel.apiBaseUrl, chatId, name);
    case "slack":
      return openSlackThread(token, channel.apiBaseUrl, chatId, text);
    default:
      return openDiscordThread(token, channel.apiBaseUrl, chatId, { text, name });
  }
}
