import type { ChannelConnectAnswer, ChannelStatus } from "../../client/src/index";
import { stringFlag } from "./args";
import { type Command, type CommandContext, output, required } from "./command";
import { clockTime } from "./format";
import { EXIT, UsageError } from "./io";

/** What `connect` did, or (Slack) the manifest to paste, as JSON on stdout so it can be piped to a file. */
function connectText(answer: ChannelConnectAnswer): string {
  if (answer.platform === "telegram")
    return `Telegram webhook set to ${answer.url} (updates: ${(answer.allowedUpdates ?? []).join(", ")}).`;
  if (answer.platform === "discord")
    return `Discord commands registered: ${(answer.commands ?? []).join(", ")}.\nSet the Interactions Endpoint URL on the Developer Portal to the channel's URL.`;
  return `${answer.paste ?? ""}\n\n${JSON.stringify(answer.manifest, null, 2)}`;
}

function statusText(status: ChannelStatus): string {
  const lines: [string, string | undefined][] = [["channel", `${status.channel} (${status.platform})`]];
  for (const [key, value] of Object.entries(status.platformView ?? {}))
    lines.push([
      `platform ${key}`,
      key === "last_error_date" && typeof value === "number"
        ? clockTime(value * 1000)
        : Array.isArray(value)
          ? value.join(", ") || "none"
          : String(value),
    ]);
  const ours = status.ours;
  lines.push(
    [
      "last inbound",
      ours.lastInboundAt === undefined
        ? "never"
        : `${clockTime(ours.lastInboundAt)} (${ours.lastInboundOutcome ?? "?"})`,
    ],
    ["ignored", `${ours.ignoredCount}${ours.lastIgnoredReason ? ` (last: ${ours.lastIgnoredReason})` : ""}`],
    [
      "delivery error",
      ours.lastDeliveryError
        ? `${clockTime(ours.lastDeliveryError.updatedAt)} ${ours.lastDeliveryError.status}: ${ours.lastDeliveryError.lastError} (${ours.lastDeliveryError.deliveryId})`
        : "none",
    ],
  );
  return lines.map(([name, value]) => `${`${name}:`.padEnd(26)}${value ?? ""}`).join("\n");
}

/** `switchboard channels connect|status <name>` (SPEC §21 Setup): the platform calls are the Worker's. */
export const channelsCommand: Command = {
  name: "channels",
  usage: "channels connect|status <name> [--public-url https://…]",
  summary: "Connect a chat platform channel, or show its state",
  details: `connect: Telegram setWebhook (URL, secret token, update types); Discord registers /ask and the
message command; Slack prints the app manifest to paste. The URL is the service's (--url) unless
--public-url gives the public one (https). status: the platform's view (Telegram getWebhookInfo,
Slack auth.test, Discord's application and whether /ask is registered) beside ours (last inbound, ignored count, last delivery error). Operator token only.
Example: switchboard channels connect tg`,
  flags: { "public-url": "string" },
  run: async (ctx: CommandContext) => {
    const action = ctx.positionals[0];
    const name = required(ctx, 1, "name");
    if (action === "connect") {
      const publicUrl = stringFlag(ctx.flags, "public-url");
      const answer = await ctx.client.channels.connect(name, publicUrl ? { publicUrl } : {});
      output(ctx, answer, () => connectText(answer));
      return EXIT.ok;
    }
    if (action === "status") {
      const status = await ctx.client.channels.status(name);
      output(ctx, status, () => statusText(status));
      return EXIT.ok;
    }
    throw new UsageError(`unknown action "${action ?? ""}": connect or status`);
  },
};
