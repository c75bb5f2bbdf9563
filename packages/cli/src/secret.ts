import { deriveKey, type KeyPurpose } from "../../../src/auth/purpose-keys";
import { type Command, output, required } from "./command";
import { EXIT, UsageError } from "./io";

/** The purpose a `secret` command names: a channel, a webhook agent, or every outbound webhook. */
function purposeOf(kind: string, name: () => string): KeyPurpose {
  if (kind === "webhooks") return { use: "webhooks" };
  if (kind === "channel") return { use: "channel", channel: name().toLowerCase() };
  if (kind === "webhook") return { use: "webhook-agent", agentId: name().toLowerCase() };
  throw new UsageError(`unknown secret kind "${kind}": use channel, webhook or webhooks`);
}

export const secretCommand: Command = {
  name: "secret",
  usage: "secret channel|webhook <name> | secret webhooks",
  summary:
    "print the secret derived for a channel bridge, a webhook agent or webhook receivers (offline; no token needed)",
  details: `A channel or webhook agent without secretEnv signs with a key derived from the signing key for it
alone (HKDF-SHA256), never with the signing key itself. This prints that key, computed locally from
$SWITCHBOARD_SIGNING_KEY: hand it to the bridge or agent. \`secret webhooks\` prints the key every outbound
webhook (run webhooks, cron and hook deliveries) is signed with (X-Switchboard-Signature), for the receiver to
verify. Rotating the signing key changes every derived secret (README "Keys and rotation").
Example: SWITCHBOARD_SIGNING_KEY=… switchboard secret channel telegram`,
  flags: {},
  offline: true,
  async run(ctx) {
    const purpose = purposeOf(required(ctx, 0, "channel|webhook|webhooks"), () => required(ctx, 1, "name"));
    const rootKey = ctx.io.env.SWITCHBOARD_SIGNING_KEY;
    if (!rootKey)
      throw new UsageError("set SWITCHBOARD_SIGNING_KEY to the Worker's signing key to derive from it");
    const secret = await deriveKey(rootKey, purpose);
    output(ctx, { secret }, () => secret);
    return EXIT.ok;
  },
};
