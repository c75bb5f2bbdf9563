import { type Context, Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../../app-env";
import { AppError } from "../../errors";
import type { ChannelSettings } from "../../platforms/platform";
import { connectChannel } from "../../platforms/setup";
import { channelStatus } from "../../platforms/status";
import { readJsonBody } from "../middleware";
import { parseBody } from "../parse-body";

/** `POST /v1/channels/{name}/connect`'s body: where the platform should call, when not this request's origin. */
export const connectBodySchema = z.strictObject({
  publicUrl: z
    .url({ protocol: /^https$/, error: "must be an https URL" })
    .optional()
    .describe(
      "This service's public origin, when the platform must reach it under another address than the one this request came to (a proxy). Only its origin is used.",
    ),
});

/** The channel's settings, for the operator only (the bot's credentials are at stake): 403, 404. */
function operatorChannel(c: Context<AppEnv>): { channel: string; settings: ChannelSettings } {
  if (c.get("identity").kind !== "operator")
    throw new AppError("forbidden", "connecting and inspecting channels needs the operator token");
  const channel = (c.req.param("channel") ?? "").toLowerCase();
  const settings = c.get("config").channels[channel];
  if (!settings)
    throw new AppError(
      "not_found",
      `unknown channel "${channel}": add it under channels in the configuration`,
    );
  return { channel, settings };
}

/**
 * The operator's setup routes of a chat platform channel (SPEC §21 Setup), behind the bearer check,
 * unlike the platform's own `POST …/messages`. The platform is called here, where the secrets are.
 */
export const channelSetupRoutes = new Hono<AppEnv>()
  .post("/:channel/connect", async (c) => {
    const { channel, settings } = operatorChannel(c);
    const body = parseBody(connectBodySchema, await readJsonBody(c.req.raw));
    // The request's own origin by default: the operator reaches this service where the platform will.
    const origin = body.publicUrl ? new URL(body.publicUrl).origin : new URL(c.req.url).origin;
    const url = `${origin}/v1/channels/${encodeURIComponent(channel)}/messages`;
    return c.json({ channel, ...(await connectChannel(c.env, channel, settings, url)) });
  })
  .get("/:channel/status", async (c) => {
    const { channel, settings } = operatorChannel(c);
    return c.json(await channelStatus(c.env, channel, settings));
  });
