import type { RunStreamItem, SessionStreamItem } from "../../client/src/index";
import { stringFlag } from "./args";
import { type Command, type CommandContext, note, required } from "./command";
import { cell, messageText, shortTime } from "./format";
import { EXIT } from "./io";

/** An abort signal that Ctrl-C fires while `work` runs (the process is not killed meanwhile). */
export async function untilInterrupted<T>(
  ctx: CommandContext,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const stop = new AbortController();
  const release = ctx.io.onInterrupt?.(() => stop.abort());
  try {
    return await work(stop.signal);
  } finally {
    release?.();
  }
}

/** One item as a JSON line (`--json`: the stream as NDJSON). */
const jsonLine = (ctx: CommandContext, item: unknown) => ctx.io.stdout(`${JSON.stringify(item)}\n`);

/** `12:00:01  message  human alice  user: hello…`: one line per event, as a person reads a log. */
export function eventLine(item: SessionStreamItem, tree: boolean): string {
  if (item.kind === "hidden")
    return `--  ${item.sessions === 1 ? "1 session" : `${item.sessions} sessions`} of this tree not visible to this token (other agents', or beyond its visibility): their events are left out`;
  if (item.kind === "gap") {
    const where = item.sessionKey ? ` of ${item.sessionKey}` : "";
    return `--  events${where} after ${item.after} were pruned; they resume at ${item.earliestAvailableSequence}`;
  }
  const actor = item.actor.id ? `${item.actor.type} ${item.actor.id}` : item.actor.type;
  let text = item.summary;
  if (item.kind === "message" && item.message) {
    const source = item.message.provenance?.kind;
    const role =
      source && source !== "external_user" ? `${item.message.role} (${source})` : item.message.role;
    text = `${role}: ${cell(messageText(item.message) || "(no text)", 100)}`;
  }
  const where = tree && item.sessionKey ? `[${item.sessionKey}]  ` : "";
  return `${shortTime(item.occurredAt)}  ${where}${item.kind.padEnd(15)}  ${actor}  ${text}`;
}

/**
 * Prints a run's reply as its deltas arrive (a restarted attempt starts the reply again on a new
 * line), with `prefix` before it; returns the run's last item, undefined when the stream was stopped.
 */
export async function printReply(
  ctx: CommandContext,
  items: AsyncIterable<RunStreamItem>,
  prefix = "",
): Promise<RunStreamItem | undefined> {
  let printed = false;
  const write = (text: string) => {
    if (!printed) ctx.io.stdout(prefix);
    printed = true;
    ctx.io.stdout(prefix ? text.replace(/\n/g, `\n${" ".repeat(prefix.length)}`) : text);
  };
  for await (const item of items) {
    if (ctx.json) jsonLine(ctx, item);
    else if (item.kind === "delta" && item.data.reset && printed) {
      ctx.io.stdout("\n");
      printed = false;
      note(ctx, "(the run retried: its reply starts again)");
    } else if (item.kind === "delta") write(item.data.text);
    else if (item.kind === "progress") note(ctx, `… ${item.data.message}`);
    if (item.kind === "run_completed" || item.kind === "run_failed") {
      if (printed) ctx.io.stdout("\n");
      return item;
    }
  }
  if (printed) ctx.io.stdout("\n");
  return undefined;
}

export const followCommand: Command = {
  name: "follow",
  usage: "follow <session> [--tree] [--after N] [--raw] [--replies]",
  summary: "watch a session live: one line per event as it happens (Ctrl-C stops)",
  details: `Prints the session's events as they are written: time, kind, who caused it, and what happened;
a message shows its role and the start of its text (the sessions_history safe view). The stream
resumes by itself when the server ends a connection.
Options:
  --after N     first replay the events after N (a stateVersion or seq; 0 = from the start)
  --tree        the session's sub-agents' events too, each with its session key (a line says how
                many sub-agent sessions this token may not read: another agent's need the operator token)
  --raw         messages exactly as stored (operator token only)
  --replies     print each run's reply as it is written (its deltas), before the events after it
  --json        one JSON event per line
Example: switchboard follow agent:main:main --after 0 --replies`,
  flags: { tree: "boolean", after: "string", raw: "boolean", replies: "boolean" },
  async run(ctx) {
    const sessionKey = required(ctx, 0, "session");
    const after = stringFlag(ctx.flags, "after");
    const tree = ctx.flags.tree === true;
    await untilInterrupted(ctx, async (signal) => {
      const events = ctx.client.events(sessionKey, {
        tree,
        raw: ctx.flags.raw === true,
        signal,
        ...(after !== undefined ? { after: /^\d+$/.test(after) ? Number(after) : after } : {}),
      });
      // The stream says it again on each reconnect: printed when the count changes.
      let hidden = 0;
      for await (const item of events) {
        if (item.kind === "hidden") {
          if (item.sessions === hidden) continue;
          hidden = item.sessions;
        }
        if (ctx.json) jsonLine(ctx, item);
        else ctx.io.stdout(`${eventLine(item, tree)}\n`);
        // The session's next events wait (in the server's log) while the reply prints.
        if (ctx.flags.replies === true && item.kind === "run_started" && item.runId)
          await printReply(ctx, ctx.client.runEvents(item.runId, { signal }), "          ↳ ");
      }
    });
    return EXIT.ok;
  },
};

/** `send --stream`: chat.send into the session, its reply printed as it is written, then its status. */
export async function sendStreamedReply(
  ctx: CommandContext,
  sessionKey: string,
  text: string,
): Promise<number> {
  let runId: string | undefined;
  const last = await untilInterrupted(ctx, (signal) =>
    printReply(
      ctx,
      (async function* () {
        for await (const item of ctx.client.sendStreamed(sessionKey, text, { signal })) {
          runId = item.runId;
          yield item;
        }
      })(),
    ),
  );
  if (!last) {
    note(ctx, runId ? `stopped watching; the run continues: switchboard wait ${runId}` : "stopped");
    return EXIT.failed;
  }
  if (last.kind === "run_completed") {
    note(ctx, `run ${last.runId}: ok`);
    return EXIT.ok;
  }
  const failed = last.kind === "run_failed" ? last.data : undefined;
  note(ctx, `run ${last.runId}: ${failed?.outcome ?? "failed"}${failed?.error ? `: ${failed.error}` : ""}`);
  return EXIT.failed;
}
