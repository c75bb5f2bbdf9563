import type { SessionsArgs, SessionsResult } from "../../client/src/index";
import { type Flags, stringFlag } from "./args";
import { type Command, output, refusal, required } from "./command";
import { EXIT, UsageError } from "./io";

/** A `true|false` option's value, if given; anything else is a usage error. */
function booleanValue(flags: Flags, name: string): boolean | undefined {
  const value = stringFlag(flags, name)?.trim().toLowerCase();
  if (value === undefined) return undefined;
  if (value === "true" || value === "false") return value === "true";
  throw new UsageError(`--${name} must be true or false, not "${stringFlag(flags, name)}"`);
}

/** The patch fields of the options, as the `sessions` tool names them. */
function patchArgs(flags: Flags): Partial<SessionsArgs> {
  const label = stringFlag(flags, "label");
  const displayName = stringFlag(flags, "name");
  const archived = booleanValue(flags, "archived");
  const pinned = booleanValue(flags, "pinned");
  const model = stringFlag(flags, "model");
  const thinkingLevel = stringFlag(flags, "thinking");
  return {
    ...(label !== undefined ? { label } : {}),
    ...(displayName !== undefined ? { displayName } : {}),
    ...(archived !== undefined ? { archived } : {}),
    ...(pinned !== undefined ? { pinned } : {}),
    ...(model !== undefined ? { model } : {}),
    ...(thinkingLevel !== undefined ? { thinkingLevel } : {}),
  };
}

function resultText(result: SessionsResult): string {
  if (result.status === "updated") return `updated ${result.sessionKey}: ${result.updated.join(", ")}`;
  if (result.status === "scheduled") return `${result.sessionKey}: ${result.message}`;
  if (result.status === "deleted") return `deleted ${result.sessionKey}`;
  return "";
}

export const sessionsCommand: Command = {
  name: "sessions",
  usage:
    "sessions patch <session> [--label L] [--name NAME] [--archived true|false] [--pinned true|false] [--model M] [--thinking LEVEL] [--expected-session-id ID] | sessions delete <session> --expected-session-id ID",
  summary: "change or delete a session you can see (sessions)",
  details: `<session> is a key or a sessionId; "current" is your own session.
Options:
  --label L, --name NAME     its label, display name
  --archived true|false      hide it from default listings, or list it again
  --pinned true|false        pin it
  --model M                  a configured model; "default" clears the override
  --thinking LEVEL           its thinking level
  --expected-session-id ID   its sessionId (from list --json): required to archive, unarchive or delete
                             another session, so a key re-created meanwhile is left alone
Examples: switchboard sessions patch agent:main:main --label ops --pinned true
          switchboard sessions delete agent:main:api:old --expected-session-id 5f…`,
  flags: {
    label: "string",
    name: "string",
    archived: "string",
    pinned: "string",
    model: "string",
    thinking: "string",
    "expected-session-id": "string",
  },
  async run(ctx) {
    const action = ctx.positionals[0];
    if (action !== "patch" && action !== "delete")
      throw new UsageError(`unknown action "${action ?? ""}": patch or delete`);
    const sessionKey = required(ctx, 1, "session");
    const expectedSessionId = stringFlag(ctx.flags, "expected-session-id");
    const result = await ctx.client.sessions({
      action,
      sessionKey,
      ...(expectedSessionId !== undefined ? { expectedSessionId } : {}),
      ...(action === "patch" ? patchArgs(ctx.flags) : {}),
    });
    const refused = refusal(ctx, result);
    if (refused !== undefined) return refused;
    output(ctx, result, () => resultText(result));
    return EXIT.ok;
  },
};
