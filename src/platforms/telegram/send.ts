import type { DeliveryResult } from "../../queue/delivery-result";
import type { OutboundMessage } from "../../queue/messages";
import { sendParts } from "../send";
import { splitMessage } from "../split";
import { TELEGRAM_API, telegramCall } from "./api";
import { TELEGRAM_LIMIT, telegramMarkdown } from "./format";

/** The chat id of a post's `to` (`group:-100…`, `direct:42`, or the id itself). */
const chatIdOf = (to: string) => to.replace(/^(group|channel|direct|dm):/, "");

/**
 * A reply through `sendMessage` (SPEC §21): in the forum topic it came from, the first part quoting the
 * message it answers (if that message is gone, sent all the same), in MarkdownV2; a part whose
 * formatting Telegram refuses goes again as plain text. Parts before `sent` went out already.
 */
export async function sendTelegram(
  message: OutboundMessage,
  token: string,
  apiBaseUrl: string | undefined,
  sent: number,
): Promise<DeliveryResult> {
  const root = apiBaseUrl ?? TELEGRAM_API;
  const base = {
    chat_id: chatIdOf(message.to),
    ...(message.threadId !== undefined ? { message_thread_id: Number(message.threadId) } : {}),
  };
  return sendParts(splitMessage(message.text, TELEGRAM_LIMIT), sent, async (part, index) => {
    const reply =
      index === 0 && message.replyToMessageId
        ? {
            reply_parameters: {
              message_id: Number(message.replyToMessageId),
              allow_sending_without_reply: true,
            },
          }
        : {};
    const body = { ...base, ...reply };
    const formatted = await telegramCall(root, token, "sendMessage", {
      ...body,
      text: telegramMarkdown(part),
      parse_mode: "MarkdownV2",
    });
    if (formatted.kind !== "format_rejected") return formatted;
    return telegramCall(root, token, "sendMessage", { ...body, text: part });
  });
}
