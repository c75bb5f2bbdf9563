import type { RunWaitResult, SessionsSendResult } from "../../client/src/index";
import { numberFlag, stringFlag } from "./args";
import { type Command, type CommandContext, note, output, required } from "./command";
import { EXIT, UsageError } from "./io";
import { sendStreamedReply } from "./live";
import { withProgress } from "./spinner";

const DEFAULT_TIMEOUT_SECONDS = 30;

/** Prints a reply, or says why there is none yet; the exit code follows the outcome. */
function finishWait(ctx: CommandContext, result: RunWaitResult | SessionsSendResult, runId: string): number {
  if (result.status === "ok") {
    output(ctx, result, () => result.reply ?? "");
    if (result.reply === undefined) note(ctx, "(the run ended without a reply)");
    return EXIT.ok;
  }
  const runEnded = "runStatus" in result && result.runStatus === "timeout";
  if (result.status === "timeout" && !runEnded) {
    output(ctx, result, () => "");
    note(ctx, `no reply yet; the run continues. Wait again: switchboard wait ${runId}`);
    return EXIT.failed;
  }
  if (result.status === "no_reply") {
    output(ctx, result, () => "");
    note(ctx, result.message);
    return EXIT.ok;
  }
  if (result.status === "accepted") {
    const taken =
      "targetDisposition" in result && result.targetDisposition === "steered"
        ? `steered into run ${result.runId}`
        : `accepted: run ${result.runId} (not waiting for the reply)`;
    output(ctx, result, () => taken);
    return EXIT.ok;
  }
  if (ctx.json) output(ctx, result, () => "");
  else ctx.io.stderr(`${result.status}: ${result.error ?? "the run failed"}\n`);
  return result.status === "forbidden" ? EXIT.refused : EXIT.failed;
}

/** chat.send into one of your own sessions, then a server-side wait for its run. */
async function sendAsUser(ctx: CommandContext, sessionKey: string, text: string, timeoutSeconds: number) {
  const queued = await ctx.client.sendMessage(sessionKey, { text });
  if (timeoutSeconds === 0) {
    output(ctx, queued, () => `accepted: run ${queued.runId} (not waiting for the reply)`);
    return EXIT.ok;
  }
  const result = await withProgress(ctx.io, `waiting for ${sessionKey} to reply`, () =>
    ctx.client.waitRun(queued.runId, { timeoutMs: timeoutSeconds * 1000, sessionKey }),
  );
  return finishWait(ctx, result, queued.runId);
}

export const sendCommand: Command = {
  name: "send",
  usage: "send <session> <message…> [--timeout N] [--steer] [--user] [--stream] | send --label L <message…>",
  summary: "message a session and print its reply (sessions_send, as the requester)",
  details: `Sends as the requester session (your agent's main session, or --session), like an agent would.
Options:
  --timeout N   seconds to wait for the reply, default ${DEFAULT_TIMEOUT_SECONDS}; 0 sends without waiting
  --label L     find the target by its label instead of a key
  --steer       put the message into the target's active run instead of a new turn (no waiting)
  --user        post as an end user into one of your own sessions instead (chat.send), then wait
  --stream      as --user, but print the reply as it is written, then the run's status (Ctrl-C stops
                watching; the run goes on)
Example: switchboard send agent:research:main "Summarize the Q3 incident reports" --timeout 20`,
  flags: { timeout: "string", label: "string", user: "boolean", steer: "boolean", stream: "boolean" },
  async run(ctx) {
    const label = stringFlag(ctx.flags, "label");
    const sessionKey = label ? undefined : required(ctx, 0, "session");
    const message = ctx.positionals.slice(label ? 0 : 1).join(" ");
    if (message.trim() === "") throw new UsageError("<message> required");
    if (ctx.flags.stream) {
      if (!sessionKey) throw new UsageError("--stream needs a <session> key, not --label");
      if (ctx.flags.steer) throw new UsageError("--stream starts a turn; it does not --steer");
      if (ctx.flags.timeout !== undefined)
        throw new UsageError("--stream watches the run to its end; --timeout does not apply");
      return sendStreamedReply(ctx, sessionKey, message);
    }
    const timeoutSeconds = numberFlag(ctx.flags, "timeout") ?? DEFAULT_TIMEOUT_SECONDS;
    if (ctx.flags.user) {
      if (!sessionKey) throw new UsageError("--user needs a <session> key, not --label");
      if (ctx.flags.steer) throw new UsageError("--steer sends as your agent, not with --user");
      return sendAsUser(ctx, sessionKey, message, timeoutSeconds);
    }
    // A steer answers at once (the server forces timeoutSeconds to 0): nothing to wait for.
    const steer = ctx.flags.steer === true;
    const send = () =>
      ctx.client.sessionsSend({
        ...(sessionKey ? { sessionKey } : { label }),
        message,
        ...(steer ? { mode: "steer" as const, timeoutSeconds: 0 } : { timeoutSeconds }),
      });
    const result =
      timeoutSeconds === 0 || steer
        ? await send()
        : await withProgress(ctx.io, `waiting for ${sessionKey ?? label} to reply`, send);
    return finishWait(ctx, result, result.runId);
  },
};

export const waitCommand: Command = {
  name: "wait",
  usage: "wait <runId> [--timeout N]",
  summary: "wait for a run (after a send timed out) and print its reply",
  details: `Options:
  --timeout N   seconds to wait, default ${DEFAULT_TIMEOUT_SECONDS}, at most 600
Example: switchboard wait 3f0c…`,
  flags: { timeout: "string" },
  async run(ctx) {
    const runId = required(ctx, 0, "runId");
    const timeoutSeconds = Math.min(600, numberFlag(ctx.flags, "timeout") ?? DEFAULT_TIMEOUT_SECONDS);
    const result = await withProgress(ctx.io, `waiting for run ${runId}`, () =>
      ctx.client.waitRun(runId, { timeoutMs: timeoutSeconds * 1000 }),
    );
    return finishWait(ctx, result, runId);
  },
};
