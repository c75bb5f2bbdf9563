import type { ThreadOpened } from "../platform";
import { DISCORD_API, discordCall } from "./api";

/**
 * A thread for a sub-agent (SPEC §21 threads): the bot posts a message about the task in the channel,
 * then starts a thread from it (`POST /channels/{id}/messages/{message}/threads`); the thread is a
 * channel of its own, whose id is what replies are posted to.
 */
export async function openDiscordThread(
  token: string,
  apiBaseUrl: string | undefined,
  channelId: string,
  intro: { text: string; name: string },
): Promise<ThreadOpened> {
  const root = apiBaseUrl ?? DISCORD_API;
  const auth = { botToken: token, secrets: [token] };
  const posted = await discordCall(
    root,
    "POST",
    `/channels/${channelId}/messages`,
    { content: intro.text, allowed_mentions: { parse: [] } },
    auth,
  );
  if (posted.kind !== "ok") return { ok: false, error: posted.reason };
  const messageId = posted.json.id;
  if (typeof messageId !== "string") return { ok: false, error: "Discord answered a message without an id" };
  const started = await discordCall(
    root,
    "POST",
    `/channels/${channelId}/messages/${messageId}/threads`,
    // Discord takes 1–100 characters.
    { name: intro.name.slice(0, 100) },
    auth,
  );
  if (started.kind !== "ok") return { ok: false, error: started.reason };
  const threadId = started.json.id;
  if (typeof threadId !== "string") return { ok: false, error: "Discord answered a thread without an id" };
  return { ok: true, threadId };
}
