import { z } from "zod";
import { connectBodySchema } from "../routes/v1/channel-setup";
import type { RouteDoc } from "./types";

const connectAnswerSchema = z.object({
  channel: z.string(),
  platform: z.enum(["telegram", "slack", "discord"]),
  done: z
    .enum(["setWebhook", "commands", "nothing"])
    .describe("What was set on the platform: Telegram's webhook, Discord's commands, nothing for Slack"),
  url: z
    .string()
    .optional()
    .describe("The channel's `POST /v1/channels/{channel}/messages` as the platform calls it"),
  allowedUpdates: z.array(z.string()).optional().describe("Telegram: the update types asked for"),
  commands: z.array(z.string()).optional().describe("Discord: the application commands registered"),
  manifest: z.record(z.string(), z.unknown()).optional().describe("Slack: the app manifest to paste"),
  paste: z.string().optional().describe("Slack: what to do with the manifest"),
});

const statusSchema = z.object({
  channel: z.string(),
  platform: z.enum(["webhook", "telegram", "slack", "discord"]),
  platformView: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      "The platform's own view, in its field names: Telegram's `getWebhookInfo` (`url`, `pending_update_count`, `last_error_date`, `last_error_message`, `allowed_updates`); Slack's `auth.test` (`team`, `team_id`, `user`, `user_id`, `bot_id`, `url`); Discord's `GET /applications/@me` (`id`, `name`, `interactions_endpoint_url`, `bot_username`) with the application's `commands` (names) and `ask_registered` (or `commands_error`). `{ error }` when it could not be read; absent for a webhook channel",
    ),
  ours: z.object({
    lastInboundAt: z.number().int().optional().describe("ms since the epoch"),
    lastInboundOutcome: z.string().optional(),
    lastIgnoredReason: z.string().optional(),
    ignoredCount: z.number().int().describe("Verified requests acknowledged but ignored"),
    lastDeliveryError: z
      .object({
        deliveryId: z.string(),
        sessionKey: z.string(),
        target: z.string(),
        status: z.string(),
        lastError: z.string(),
        updatedAt: z.number().int(),
      })
      .optional()
      .describe("The newest post to this channel whose last attempt failed"),
  }),
});

const channelParam = { channel: "A channel configured under `channels`." };
const WHO =
  "The operator token only (the bot's credentials are at stake): agent, run and grant tokens are 403.";

/** A chat platform channel's setup (SPEC §21 Setup). */
export const channelRouteDocs: RouteDoc[] = [
  {
    method: "POST",
    path: "/v1/channels/:channel/connect",
    operationId: "connectChannel",
    summary: "Connect a chat platform channel",
    description: `Does what the platform allows by API, from the Worker (where the secrets are), through the channel's \`apiBaseUrl\`: Telegram \`setWebhook\` with the channel's URL, its secret token and the update types read; Discord registers \`/ask\` and the message command (a PUT of the application's commands). Slack has no such API: the answer is the app manifest to paste. The URL is this request's origin unless \`publicUrl\` (https) gives another. A \`webhook\` channel is 400 (nothing to connect); a platform's refusal is 503 in its own words. ${WHO}`,
    tag: "Channels",
    auth: "bearer",
    pathParams: channelParam,
    body: { name: "ConnectChannelRequest", schema: connectBodySchema, example: {} },
    responses: [
      {
        status: 200,
        description: "What was done, or what to paste.",
        schema: connectAnswerSchema,
        name: "ConnectChannelAnswer",
        example: {
          channel: "tg",
          platform: "telegram",
          done: "setWebhook",
          url: "https://switchboard.example.com/v1/channels/tg/messages",
          allowedUpdates: ["message", "edited_message", "channel_post", "edited_channel_post"],
        },
      },
    ],
    errors: [400, 401, 403, 404, 500, 503],
  },
  {
    method: "GET",
    path: "/v1/channels/:channel/status",
    operationId: "getChannelStatus",
    summary: "A channel's state, the platform's and ours",
    description: `The platform's view (Telegram \`getWebhookInfo\`) beside ours: the last inbound request, how many were ignored, the last delivery error. ${WHO}`,
    tag: "Channels",
    auth: "bearer",
    pathParams: channelParam,
    responses: [
      {
        status: 200,
        description: "The channel's state.",
        schema: statusSchema,
        name: "ChannelStatus",
        example: {
          channel: "tg",
          platform: "telegram",
          platformView: {
            url: "https://switchboard.example.com/v1/channels/tg/messages",
            pending_update_count: 0,
          },
          ours: { lastInboundAt: 1767225600000, lastInboundOutcome: "accepted", ignoredCount: 0 },
        },
      },
    ],
    errors: [401, 403, 404, 500],
  },
];
