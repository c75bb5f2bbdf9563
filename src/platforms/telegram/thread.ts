import type { ThreadOpened } from "../platform";
import { TELEGRAM_API, telegramCall } from "./api";

/**
 * A forum topic for a sub-agent (SPEC §21 threads): `createForumTopic` in the chat. Only a forum (a
 * supergroup with topics) has them: Telegram refuses any other chat, which is said plainly.
 */
export async function openTelegramTopic(
  token: string,
  apiBaseUrl: string | undefined,
  chatId: string,
  name: string,
): Promise<ThreadOpened> {
  const outcome = await telegramCall(apiBaseUrl ?? TELEGRAM_API, token, "createForumTopic", {
    chat_id: chatId,
    // Telegram takes 1–128 characters.
    name: name.slice(0, 128),
  });
  if (outcome.kind === "ok") {
    const topic = (outcome.json.result as { message_thread_id?: unknown } | undefined)?.message_thread_id;
    if (typeof topic === "number") return { ok: true, threadId: String(topic) };
    return { ok: false, error: "Telegram createForumTopic answered without a message_thread_id" };
  }
  // Telegram says "the chat is not a forum" (or, for a private or basic group, that only supergroups have them).
  if (/not a forum|supergroup/i.test(outcome.reason))
    return { ok: false, error: `needs a forum chat (a group with topics) on Telegram: ${outcome.reason}` };
  return { ok: false, error: outcome.reason };
}
