import type { ThreadOpened } from "../platform";
import { SLACK_API, slackCall } from "./api";

/**
 * A thread for a sub-agent (SPEC §21 threads): the bot posts a message about the task in the chat, and
 * the thread is that message's `ts` (Slack's threads hang off a message).
 */
export async function openSlackThread(
  token: string,
  apiBaseUrl: string | undefined,
  channelId: string,
  text: string,
): Promise<ThreadOpened> {
  const outcome = await slackCall(apiBaseUrl ?? SLACK_API, token, "chat.postMessage", {
    channel: channelId,
    text,
  });
  if (outcome.kind !== "ok") return { ok: false, error: outcome.reason };
  const ts = outcome.json.ts;
  if (typeof ts !== "string") return { ok: false, error: "Slack chat.postMessage answered without a ts" };
  return { ok: true, threadId: ts };
}
