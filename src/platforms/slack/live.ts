import { draftText, LIVE_CALL_TIMEOUT_MS, type LiveTarget, type PlatformLive } from "../live-types";
import { SLACK_API, slackCall } from "./api";
import { SLACK_LIMIT } from "./format";

/** The conversation id of a post's `to` (`channel:C…`, `direct:D…`). */
export const slackChannelId = (to: string) => to.replace(/^(group|channel|direct|dm):/, "");

/** What the placeholder says until the reply's text replaces it. */
export const SLACK_PLACEHOLDER = "…";

/**
 * Slack's live half. In a direct chat's thread (an assistant thread: Slack's AI apps talk in threads of
 * the app's DM) the assistant status (`assistant.threads.setStatus`, cleared by Slack when the reply is
 * posted); anywhere else, or when Slack refuses the status, a placeholder message, which the reply then
 * completes by `chat.update` (SPEC §21). Drafts and edits are `chat.postMessage` and `chat.update`.
 */
export function slackLive(token: string, apiBaseUrl: string | undefined, target: LiveTarget): PlatformLive {
  const root = apiBaseUrl ?? SLACK_API;
  const channel = slackChannelId(target.to);
  const thread = target.threadId !== undefined ? { thread_ts: String(target.threadId) } : {};
  const call = (method: string, body: Record<string, unknown>) =>
    slackCall(root, token, method, body, AbortSignal.timeout(LIVE_CALL_TIMEOUT_MS));
  const post = async (text: string) => {
    const sent = await call("chat.postMessage", { channel, ...thread, text });
    return sent.kind === "ok" && typeof sent.json.ts === "string" ? sent.json.ts : undefined;
  };
  // A direct chat's conversation id starts with D (an `im`; Slack's ids say their kind).
  const assistantThread = /^D/.test(channel) && target.threadId !== undefined;
  return {
    typingEveryMs: 0,
    typing: async () =>
      assistantThread &&
      (
        await call("assistant.threads.setStatus", {
          channel_id: channel,
          thread_ts: String(target.threadId),
          status: "is thinking…",
        })
      ).kind === "ok",
    placeholder: () => post(SLACK_PLACEHOLDER),
    draft: (text) => post(draftText(text, SLACK_LIMIT)),
    edit: async (ts, text) =>
      (await call("chat.update", { channel, ts, text: draftText(text, SLACK_LIMIT) })).kind === "ok",
  };
}
