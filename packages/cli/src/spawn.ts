import {
  isToolFailure,
  NotFoundError,
  type SessionsSpawnResult,
  SwitchboardError,
  type TranscriptMessage,
} from "../../client/src/index";
import { numberFlag, stringFlag } from "./args";
import { type Command, type CommandContext, note, output, refusal, sleep } from "./command";
import { messageText } from "./format";
import { EXIT, UsageError } from "./io";
import { startProgress } from "./spinner";

const DEFAULT_FOLLOW_SECONDS = 600;
const POLL_MS = 1000;
const RUN_WAIT_MS = 2000;

type Spawned = Extract<SessionsSpawnResult, { status: "accepted" }>;

/** True for the requester's completion message about this child (SPEC §5.4). */
function isCompletionOf(message: TranscriptMessage, spawned: Spawned): boolean {
  if (message.provenance?.kind !== "subagent_completion") return false;
  if (message.provenance.sourceSessionKey === spawned.childSessionKey) return true;
  const text = messageText(message);
  return text.includes(spawned.childSessionKey) || text.includes(spawned.runId);
}

/** A tool the server does not serve (yet) reads as what it is, not as a bare 404. */
export function unavailable(ctx: CommandContext, error: unknown, tool: string): number | undefined {
  if (!(error instanceof NotFoundError) || error.code !== "tool_not_found") return undefined;
  ctx.io.stderr(
    `${tool} is not available: this server does not serve it yet, or it is not in your tool profile (coding or full)\n`,
  );
  return EXIT.notFound;
}

/**
 * Follows a spawned child until its completion message lands in the requester's history: the child's
 * run status while it runs (when this token may read that run), then the announce.
 */
async function follow(ctx: CommandContext, spawned: Spawned, seconds: number): Promise<number> {
  const deadline = Date.now() + seconds * 1000;
  const progress = startProgress(ctx.io, `${spawned.childSessionKey}: running`, { lines: !ctx.json });
  let runEnded = false;
  let canReadRun = true;
  try {
    while (Date.now() < deadline) {
      if (canReadRun && !runEnded) {
        try {
          const run = await ctx.client.waitRun(spawned.runId, { timeoutMs: RUN_WAIT_MS });
          runEnded = run.runStatus !== "queued" && run.runStatus !== "running";
          progress.update(
            `${spawned.childSessionKey}: ${runEnded ? `run ${run.runStatus}, waiting for its completion message` : run.runStatus}`,
          );
        } catch (error) {
          // An agent token may not read another agent's runs: the history alone tells the end.
          if (!(error instanceof SwitchboardError) || (error.status !== 403 && error.status !== 404))
            throw error;
          canReadRun = false;
        }
      }
      const page = await ctx.client.sessionsHistory({ sessionKey: "current", limit: 20 });
      if (isToolFailure(page)) {
        progress.stop();
        return refusal(ctx, page) ?? EXIT.failed;
      }
      const completion = page.messages.find((message) => isCompletionOf(message, spawned));
      if (completion) {
        progress.stop();
        output(ctx, { spawn: spawned, completion }, () => messageText(completion));
        return EXIT.ok;
      }
      if (runEnded || !canReadRun) await sleep(POLL_MS);
    }
  } finally {
    progress.stop();
  }
  ctx.io.stderr(
    `no completion within ${seconds}s; the child may still be running: switchboard subagents list, or switchboard history ${spawned.childSessionKey}\n`,
  );
  return EXIT.failed;
}

/** `--schema`: a JSON object, read here so a typo is a usage error, not a server refusal. */
function schemaFlag(text: string): Record<string, unknown> {
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch {
    throw new UsageError("--schema must be JSON (a JSON Schema object)");
  }
  if (schema === null || typeof schema !== "object" || Array.isArray(schema))
    throw new UsageError("--schema must be a JSON Schema object");
  return schema as Record<string, unknown>;
}

export const spawnCommand: Command = {
  name: "spawn",
  usage:
    "spawn <task…> [--agent ID] [--label L] [--timeout N] [--no-follow] [--collect [--group G] [--schema JSON]]",
  summary: "start a sub-agent on a task (sessions_spawn), then follow it until its completion arrives",
  details: `The child's completion message is announced to the requester session; spawn prints it.
Options:
  --agent ID    the agent to spawn (see \`switchboard agents\`); default: your own
  --label L     a short name for the child, for \`subagents\` and listings
  --timeout N   stop following after N seconds, default ${DEFAULT_FOLLOW_SECONDS} (the child keeps running)
  --no-follow   print the spawn result and return at once
  --collect     a collector: nothing is announced; collect its result with \`switchboard agents-wait\`
                (spawn then returns at once)
  --group G     with --collect: its collector group (default: the requester run's)
  --schema JSON with --collect: a JSON Schema its structured_output result must match
Example: switchboard spawn "Check the Q3 numbers" --agent research --label q3`,
  flags: {
    agent: "string",
    label: "string",
    timeout: "string",
    "no-follow": "boolean",
    collect: "boolean",
    group: "string",
    schema: "string",
  },
  async run(ctx) {
    const task = ctx.positionals.join(" ");
    if (task.trim() === "") throw new UsageError("<task> required");
    const agentId = stringFlag(ctx.flags, "agent");
    const label = stringFlag(ctx.flags, "label");
    const seconds = numberFlag(ctx.flags, "timeout") ?? DEFAULT_FOLLOW_SECONDS;
    const collect = ctx.flags.collect === true;
    const groupId = stringFlag(ctx.flags, "group");
    const schema = stringFlag(ctx.flags, "schema");
    let result: SessionsSpawnResult;
    try {
      result = await ctx.client.sessionsSpawn({
        task,
        ...(agentId ? { agentId } : {}),
        ...(label ? { label } : {}),
        ...(collect ? { collect } : {}),
        ...(groupId !== undefined ? { groupId } : {}),
        ...(schema !== undefined ? { outputSchema: schemaFlag(schema) } : {}),
      });
    } catch (error) {
      const code = unavailable(ctx, error, "sessions_spawn");
      if (code !== undefined) return code;
      throw error;
    }
    if (isToolFailure(result)) return refusal(ctx, result) ?? EXIT.failed;
    if (result.status !== "accepted") throw new Error(`sessions_spawn answered ${JSON.stringify(result)}`);
    // A collector announces nothing to follow: its result waits for agents-wait.
    if (ctx.flags["no-follow"] || collect) {
      output(ctx, result, () => `spawned ${result.childSessionKey} (run ${result.runId})`);
      if (collect) note(ctx, `collect it with: switchboard agents-wait ${result.runId}`);
      return EXIT.ok;
    }
    note(ctx, `spawned ${result.childSessionKey} (run ${result.runId})`);
    return follow(ctx, result, seconds);
  },
};
