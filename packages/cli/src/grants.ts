import type { CreateGrantBody } from "../../client/src/index";
import { stringFlag } from "./args";
import { type Command, output, required } from "./command";
import { EXIT, UsageError } from "./io";

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** `--ttl 90`, `45s`, `30m`, `1h`, `7d` in seconds; the server checks the 60 s – 7 d range. */
function ttlSeconds(text: string): number {
  const match = /^(\d{1,9})([smhd]?)$/.exec(text.trim().toLowerCase());
  if (!match?.[1]) throw new UsageError(`--ttl must be a duration like 3600, 30m, 1h or 7d, not "${text}"`);
  return Number(match[1]) * (UNIT_SECONDS[match[2] || "s"] ?? 1);
}

export const grantCommand: Command = {
  name: "grant",
  usage: "grant <session> --scopes read,send,events [--ttl 1h]",
  summary: "create a token for one session with some of read/send/events (prints the token once)",
  details: `Scopes: read (the session and its safe history), send (chat.send), events (its streams).
Options:
  --scopes LIST   comma-separated scopes (required)
  --ttl T         lifetime: seconds, or 30m, 1h, 7d (default 1h; 60 s to 7 days)
Example: switchboard grant agent:main:webchat:direct:visitor-7 --scopes read,events --ttl 1h`,
  flags: { scopes: "string", ttl: "string" },
  async run(ctx) {
    const sessionKey = required(ctx, 0, "session");
    const scopes = stringFlag(ctx.flags, "scopes");
    if (!scopes) throw new UsageError("--scopes required: read, send and/or events, comma-separated");
    const grant = await ctx.client.createGrant({
      sessionKey,
      scopes: scopes.split(",").map((scope) => scope.trim()) as CreateGrantBody["scopes"],
      ttlSeconds: ttlSeconds(stringFlag(ctx.flags, "ttl") ?? "1h"),
    });
    output(
      ctx,
      grant,
      () =>
        `${grant.token}\ngrant ${grant.grantId} on ${grant.sessionKey}: ${grant.scopes.join(", ")} until ${new Date(grant.expiresAt).toISOString()}`,
    );
    return EXIT.ok;
  },
};

export const revokeGrantCommand: Command = {
  name: "revoke-grant",
  usage: "revoke-grant <grantId>",
  summary: "revoke a grant: its token is refused from now on",
  details: "Example: switchboard revoke-grant 3f1c2a9e-8b7d-4c6e-9f0a-1b2c3d4e5f60",
  flags: {},
  async run(ctx) {
    const result = await ctx.client.revokeGrant(required(ctx, 0, "grantId"));
    output(ctx, result, () => `revoked ${result.grantId}`);
    return EXIT.ok;
  },
};
