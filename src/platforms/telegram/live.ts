import { draftText, LIVE_CALL_TIMEOUT_MS, type LiveTarget, type PlatformLive } from "../live-types";
import type { CallOutcome } from "../send";
import { TELEGRAM_API, telegramCall } from "./api";
import { TELEGRAM_LIMIT } from "./format";

/** The chat id of a post's `to` (`group:-100…`, `direct:42`, or the id itself). */
export const telegramChatId = (to: string) => to.replace(/^(group|channel|direct|dm):/, "");

/** Telegram shows `typing` for about 5 seconds (Bot API `sendChatAction`): renewed before it lapses. */
const TYPING_EVERY_MS = 4_000;

/** An edit to the text the message already has is refused as "not modified": it is what we wanted. */
export const unmodified = (outcome: CallOutcome) =>
  outcome.kind === "permanent" && /message is not modified/i.test(outcome.reason);

/** Telegram's live half: `sendChatAction` typing, a draft by `sendMessage`, edits by `editMessageText`. */
export function telegramLive(
  token: string,
  apiBaseUrl: string | undefined,
  target: LiveTarget,
): PlatformLive {
  const root = apiBaseUrl ?? TELEGRAM_API;
  const chat = {
    chat_id: telegramChatId(target.to),
    ...(target.threadId !== undefined ? { message_thread_id: Number(target.threadId) } : {}),
  };
  const call = (method: string, body: Record<string, unknown>) =>
    telegramCall(root, token, method, body, AbortSignal.timeout(LIVE_CALL_TIMEOUT_MS));
  return {
    typingEveryMs: TYPING_EVERY_MS,
    typing: async () => (await call("sendChatAction", { ...chat, action: "typing" })).kind === "ok",
    placeholder: async () => undefined,
    draft: async (text) => {
      const quote = target.replyToMessageId
        ? {
            reply_parameters: {
              message_id: Number(target.replyToMessageId),
              allow_sending_without_reply: true,
            },
          }
        : {};
      const sent = await call("sendMessage", { ...chat, ...quote, text: draftText(text, TELEGRAM_LIMIT) });
      const id = sent.kind === "ok" ? (sent.json.result as { message_id?: unknown })?.message_id : undefined;
      return id === undefined ? undefined : String(id);
    },
    edit: async (messageId, text) => {
      const edited = await call("editMessageText", {
        chat_id: chat.chat_id,
        message_id: Number(messageId),
        text: draftText(text, TELEGRAM_LIMIT),
      });
      return edited.kind === "ok" || unmodified(edited);
    },
  };
}
