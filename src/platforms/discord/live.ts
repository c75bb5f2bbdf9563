import {
  DISCORD_ORIGINAL,
  draftText,
  LIVE_CALL_TIMEOUT_MS,
  type LiveTarget,
  type PlatformLive,
} from "../live-types";
import { DISCORD_API, discordCall } from "./api";
import { DISCORD_LIMIT } from "./format";

/** Discord shows a channel's typing for 10 seconds (`POST /channels/{id}/typing`): renewed before. */
const TYPING_EVERY_MS = 8_000;

/**
 * Discord's live half. An interaction was answered with a deferred response (type 5, "thinking…") by the
 * inbound route: that is the status while the run works, and its `@original` is the draft, edited by
 * PATCH while the interaction's token lives; the final reply PATCHes it once more. Without a live token
 * the bot's typing indicator shows in the channel, and the reply is posted at the end only.
 */
export function discordLive(
  config: { token: string; applicationId: string; apiBaseUrl: string | undefined },
  target: LiveTarget,
  now: number,
): PlatformLive {
  const root = config.apiBaseUrl ?? DISCORD_API;
  const interaction =
    target.interaction && target.interaction.expiresAt > now ? target.interaction : undefined;
  const signal = () => AbortSignal.timeout(LIVE_CALL_TIMEOUT_MS);
  if (!interaction) {
    const channelId =
      target.threadId !== undefined ? String(target.threadId) : target.to.replace(/^\w+:/, "");
    return {
      typingEveryMs: TYPING_EVERY_MS,
      typing: async () =>
        (
          await discordCall(
            root,
            "POST",
            `/channels/${channelId}/typing`,
            {},
            {
              botToken: config.token,
              secrets: [config.token],
              signal: signal(),
            },
          )
        ).kind === "ok",
      placeholder: async () => undefined,
      draft: async () => undefined,
      edit: async () => false,
    };
  }
  const original = `/webhooks/${config.applicationId}/${interaction.token}/messages/@original`;
  const patch = async (text: string) =>
    (
      await discordCall(
        root,
        "PATCH",
        original,
        { content: draftText(text, DISCORD_LIMIT), allowed_mentions: { parse: [] } },
        { secrets: [interaction.token, config.token], signal: signal() },
      )
    ).kind === "ok";
  return {
    typingEveryMs: 0,
    // Nothing to send: the deferred response ("thinking…") is the status, and the placeholder.
    typing: async () => false,
    placeholder: async () => DISCORD_ORIGINAL,
    draft: async (text) => ((await patch(text)) ? DISCORD_ORIGINAL : undefined),
    edit: (_id, text) => patch(text),
  };
}
