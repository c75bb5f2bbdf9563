import type { DeliveryResult } from "../../queue/delivery-result";
import type { OutboundMessage } from "../../queue/messages";
import { type CallOutcome, sendParts } from "../send";
import { splitMessage } from "../split";
import { DISCORD_API, discordCall } from "./api";
import { DISCORD_LIMIT, discordMarkdown } from "./format";

/** Nobody is pinged by a reply (`@everyone` in a model's text stays text). */
const NO_PINGS = { allowed_mentions: { parse: [] } };

/** Where a post with the bot token goes: the thread, else the chat; a direct chat's DM channel is opened. */
async function channelOf(
  root: string,
  message: OutboundMessage,
  token: string,
): Promise<{ id: string } | Extract<CallOutcome, { kind: "retry" | "permanent" }>> {
  if (message.threadId !== undefined) return { id: String(message.threadId) };
  const [kind, id = ""] = message.to.includes(":") ? message.to.split(":", 2) : ["channel", message.to];
  if (kind !== "direct" && kind !== "dm") return { id };
  const opened = await discordCall(
    root,
    "POST",
    "/users/@me/channels",
    { recipient_id: id },
    {
      botToken: token,
      secrets: [token],
    },
  );
  if (opened.kind !== "ok")
    return opened.kind === "format_rejected" ? { kind: "permanent", reason: opened.reason } : opened;
  return { id: String(opened.json.id) };
}

/**
 * A reply on Discord (SPEC §21): while the interaction's token lives (15 minutes) through its webhook —
 * the first part completes the deferred `@original`, the rest are follow-ups — else with the bot token
 * in the channel (or thread, or DM), the first part referencing the message it answers. Parts before
 * `sent` went out already.
 */
export async function sendDiscord(
  message: OutboundMessage,
  config: { token: string; applicationId: string; apiBaseUrl: string | undefined },
  sent: number,
  now = Date.now(),
): Promise<DeliveryResult> {
  const root = config.apiBaseUrl ?? DISCORD_API;
  const parts = splitMessage(message.text, DISCORD_LIMIT);
  const interaction =
    message.interaction && message.interaction.expiresAt > now ? message.interaction : undefined;
  if (interaction) {
    const hook = `/webhooks/${config.applicationId}/${interaction.token}`;
    const secrets = [interaction.token, config.token];
    if (message.retract) {
      // The run ended without a reply: its "thinking…" or partial reply goes (SPEC §21 Live).
      const deleted = await discordCall(root, "DELETE", `${hook}/messages/@original`, {}, { secrets });
      return deleted.kind === "retry" ? deleted : { kind: "delivered" };
    }
    return sendParts(parts, sent, (part, index) =>
      index === 0
        ? discordCall(
            root,
            "PATCH",
            `${hook}/messages/@original`,
            { content: discordMarkdown(part), ...NO_PINGS },
            { secrets },
          )
        : discordCall(root, "POST", hook, { content: discordMarkdown(part), ...NO_PINGS }, { secrets }),
    );
  }
  // Without a live interaction nothing was drafted: nothing to retract.
  if (message.retract) return { kind: "delivered" };
  const channel = await channelOf(root, message, config.token);
  if (!("id" in channel)) return { ...channel, ...(sent > 0 ? { partsSent: sent } : {}) };
  return sendParts(parts, sent, (part, index) =>
    discordCall(
      root,
      "POST",
      `/channels/${channel.id}/messages`,
      {
        content: discordMarkdown(part),
        ...NO_PINGS,
        ...(index === 0 && message.replyToMessageId
          ? { message_reference: { message_id: message.replyToMessageId, fail_if_not_exists: false } }
          : {}),
      },
      { botToken: config.token, secrets: [config.token] },
    ),
  );
}
