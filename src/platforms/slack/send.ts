import type { DeliveryResult } from "../../queue/delivery-result";
import type { OutboundMessage } from "../../queue/messages";
import { sendParts } from "../send";
import { splitMessage } from "../split";
import { SLACK_API, slackCall } from "./api";
import { SLACK_LIMIT, slackMrkdwn } from "./format";
import { slackChannelId as channelIdOf } from "./live";

/**
 * A reply through `chat.postMessage` (SPEC §21): in the thread it came from (`thread_ts`), as mrkdwn.
 * Slack does not refuse mrkdwn it cannot read (it shows it as typed), so there is no plain resend. A
 * reply written into a draft or a placeholder (SPEC §21 Live) completes it by `chat.update` instead.
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
  const draft = message.draft?.messageId;
  if (message.retract) {
    if (draft === undefined) return { kind: "delivered" };
    const deleted = await slackCall(root, token, "chat.delete", { channel: base.channel, ts: draft });
    // Gone already (`message_not_found`) or not ours to delete: nothing is left to retract.
    return deleted.kind === "retry" ? deleted : { kind: "delivered" };
  }
  return sendParts(splitMessage(message.text, SLACK_LIMIT), sent, (part, index) =>
    index === 0 && draft !== undefined
      ? slackCall(root, token, "chat.update", {
          channel: base.channel,
          ts: draft,
          text: slackMrkdwn(part),
          mrkdwn: true,
        })
      : slackCall(root, token, "chat.postMessage", { ...base, text: slackMrkdwn(part), mrkdwn: true }),
  );
}
