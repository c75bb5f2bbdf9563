import type { DeliveryResult } from "../../queue/delivery-result";
import type { OutboundMessage } from "../../queue/messages";
import { sendParts } from "../send";
import { splitMessage } from "../split";
import { SLACK_API, slackCall } from "./api";
import { SLACK_LIMIT, slackMrkdwn } from "./format";

/** The conversation id of a post's `to` (`channel:C…`, `direct:U…`: a user id posts to the app's DM). */
const channelIdOf = (to: string) => to.replace(/^(group|channel|direct|dm):/, "");

/**
 * A reply through `chat.postMessage` (SPEC §21): in the thread it came from (`thread_ts`), as mrkdwn.
 * Slack does not refuse mrkdwn it cannot read (it shows it as typed), so there is no plain resend.
 */
export async function sendSlack(
  message: OutboundMessage,
  token: string,
  apiBaseUrl: string | undefined,
  sent: number,
): Promise<DeliveryResult> {
  const root = apiBaseUrl ?? SLACK_API;
  const base = {
    channel: channelIdOf(message.to),
    ...(message.threadId !== undefined ? { thread_ts: String(message.threadId) } : {}),
  };
  return sendParts(splitMessage(message.text, SLACK_LIMIT), sent, (part) =>
    slackCall(root, token, "chat.postMessage", { ...base, text: slackMrkdwn(part), mrkdwn: true }),
  );
}
