import { type Context, Hono } from "hono";
import type { AppEnv } from "../app-env";
import { AppError } from "../errors";
import { channelStuckCount, lastChannelDeliveryError } from "../index-db/channel-deliveries";
import { type ChannelStateRow, readChannelStates } from "../index-db/channel-state";
import { readShards } from "../index-db/shards";
import type { ChannelSettings } from "../platforms/platform";
import { channelStatus } from "../platforms/status";
import { requireOperator } from "./access";
import { type ChannelLine, ChannelsView, ChannelView } from "./pages/channels";

/** A channel's line: its settings and the state D1 keeps of it (no platform call: the list stays quick). */
async function channelLine(
  c: Context<AppEnv>,
  name: string,
  settings: ChannelSettings,
  state: ChannelStateRow | undefined,
): Promise<ChannelLine> {
  const shards = readShards(c.env);
  const [stuck, lastDeliveryError] = await Promise.all([
    channelStuckCount(shards, name),
    lastChannelDeliveryError(shards, name),
  ]);
  return {
    name,
    settings,
    agentId: settings.agentId ?? c.get("config").agents.list[0]?.id ?? "",
    bot: state?.botId ? { id: state.botId, username: state.botUsername } : undefined,
    lastInboundAt: state?.lastInboundAt,
    lastOutcome: state?.lastOutcome,
    stuck,
    lastDeliveryError,
  };
}

/**
 * The channels pages (SPEC §21 "The console shows each channel's state"), the operator's alone (a grant
 * sees one session; the bot's view is asked with the channel's secrets): every channel from D1, and one
 * channel with the platform's own view, as `GET /v1/channels/{name}/status` answers it.
 */
export const channelRoutes = new Hono<AppEnv>()
  .get("/", async (c) => {
    requireOperator(c);
    const states = await readChannelStates(readShards(c.env)[0]);
    const channels = Object.entries(c.get("config").channels).sort(([a], [b]) => (a < b ? -1 : 1));
    const lines = await Promise.all(
      channels.map(([name, settings]) => channelLine(c, name, settings, states.get(name))),
    );
    return c.html(<ChannelsView lines={lines} />);
  })
  .get("/:name", async (c) => {
    requireOperator(c);
    const name = c.req.param("name").toLowerCase();
    const settings = c.get("config").channels[name];
    if (!settings)
      throw new AppError(
        "not_found",
        `unknown channel "${name}": add it under channels in the configuration`,
      );
    const [states, status] = await Promise.all([
      readChannelStates(readShards(c.env)[0]),
      channelStatus(c.env, name, settings).catch((error: unknown) => {
        // A platform whose secret is unset: the page still shows ours, and why the platform could not be asked.
        if (!(error instanceof AppError)) throw error;
        return {
          channel: name,
          platform: settings.platform,
          platformView: { error: error.message },
          ours: { ignoredCount: 0 },
        };
      }),
    ]);
    const line = await channelLine(c, name, settings, states.get(name));
    return c.html(<ChannelView line={line} status={status} />);
  });
