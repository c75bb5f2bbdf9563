import type { PlatformInbound } from "../platform";
import { mapDiscordInteraction } from "./mapping";
import { verifyDiscord } from "./verify";

/**
 * Discord's inbound half: the Ed25519 signature and an interaction. The bot is the application
 * (its id is configured): interactions are commands, addressed to it by construction.
 */
export const discordInbound: PlatformInbound = {
  async verify(_env, { settings, headers, raw }) {
    if (!settings.publicKey) return { ok: false, missing: "publicKey is not set" };
    const valid = await verifyDiscord(
      settings.publicKey,
      {
        signature: headers.get("X-Signature-Ed25519") ?? undefined,
        timestamp: headers.get("X-Signature-Timestamp") ?? undefined,
      },
      raw,
    );
    return { ok: valid };
  },
  map: (body, { settings, now }) => mapDiscordInteraction(body, settings.applicationId ?? "", now),
  identity: async (_env, { settings }) =>
    settings.applicationId ? { id: settings.applicationId } : undefined,
  // The mapping already made mentions readable with the names Discord resolved.
  readableText: (message) => message.text,
  threadKind: "thread",
  refusal: () => Response.json({ type: 4, data: { content: "You cannot ask me here.", flags: 64 } }),
};
