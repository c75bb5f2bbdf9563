import type { DeliveryResult } from "../../queue/delivery-result";
import type { OutboundMessage } from "../../queue/messages";
import { type CallOutcome, sendParts } from "../send";
import { splitMessage } from "../split";
import { TELEGRAM_API, telegramCall } from "./api";
import { TELEGRAM_LIMIT, telegramMarkdown } from "./format";
import { telegramChatId as chatIdOf, unmodified } from "./live";

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
  const draft = message.draft?.messageId;
  if (message.retract) return retractDraft(root, token, base.chat_id, draft);
  return sendParts(splitMessage(message.text, TELEGRAM_LIMIT), sent, async (part, index) => {
    if (index === 0 && draft !== undefined) return editDraft(root, token, base.chat_id, draft, part);
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

/** The reply's first part written over its draft (SPEC §21 Live): formatted, plain when refused. */
async function editDraft(
  root: string,
  token: string,
  chatId: string,
  messageId: string,
  part: string,
): Promise<CallOutcome> {
  const body = { chat_id: chatId, message_id: Number(messageId) };
  const formatted = await telegramCall(root, token, "editMessageText", {
    ...body,
    text: telegramMarkdown(part),
    parse_mode: "MarkdownV2",
  });
  if (formatted.kind === "format_rejected")
    return ok(await telegramCall(root, token, "editMessageText", { ...body, text: part }));
  return ok(formatted);
}

/** An edit that finds the text already there (a retry after the edit went out) is the delivery. */
const ok = (outcome: CallOutcome): CallOutcome => (unmodified(outcome) ? { kind: "ok", json: {} } : outcome);

/** A run that ended without a reply: its draft is deleted (one that is gone already is fine). */
async function retractDraft(
  root: string,
  token: string,
  chatId: string,
  messageId: string | undefined,
): Promise<DeliveryResult> {
  if (messageId === undefined) return { kind: "delivered" };
  const deleted = await telegramCall(root, token, "deleteMessage", {
    chat_id: chatId,
    message_id: Number(messageId),
  });
  if (deleted.kind === "ok" || deleted.kind === "permanent") return { kind: "delivered" };
  return deleted.kind === "retry" ? deleted : { kind: "delivered" };
}
