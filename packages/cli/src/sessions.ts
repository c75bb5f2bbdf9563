import { isToolFailure, type SessionRow } from "../../client/src/index";
import { numberFlag, stringFlag } from "./args";
import { type Command, note, output, refusal, required } from "./command";
import { cell, table, timeAgo, transcriptText } from "./format";
import { EXIT, UsageError } from "./io";

const DEFAULT_HISTORY_LIMIT = 50;

/** `--archived true|false|all`, as the `sessions_list` filter. */
function archivedFilter(value: string | undefined): boolean | "all" | undefined {
  const lower = value?.trim().toLowerCase();
  if (lower === undefined) return undefined;
  if (lower === "all") return "all";
  if (lower === "true" || lower === "false") return lower === "true";
  throw new UsageError(`--archived must be true, false or all, not "${value}"`);
}

const title = (row: SessionRow) => row.derivedTitle ?? row.displayName ?? row.label ?? "";

export const listCommand: Command = {
  name: "list",
  usage:
    "list [--limit N] [--offset N] [--search TEXT] [--kind K,K] [--agent ID] [--label L] [--active MIN] [--archived true|false|all]",
  summary: "the sessions you can see, newest activity first (sessions_list)",
  details: `Options:
  --limit N       rows, default 50, at most 200
  --offset N      skip the newest N rows (at most 10000)
  --search TEXT   case-insensitive match over title, label, subject, sessionId, key
  --kind K,K      any of main, group, cron, hook, node, other
  --agent ID      one agent's sessions
  --label L       exact label
  --active MIN    only sessions active in the last MIN minutes
  --archived A    true: archived sessions only; all: archived and not; false (default): not archived
Example: switchboard list --search deploy`,
  flags: {
    limit: "string",
    offset: "string",
    search: "string",
    kind: "string",
    agent: "string",
    label: "string",
    active: "string",
    archived: "string",
  },
  async run(ctx) {
    const kinds = stringFlag(ctx.flags, "kind")?.split(",");
    const limit = numberFlag(ctx.flags, "limit");
    const offset = numberFlag(ctx.flags, "offset");
    const archived = archivedFilter(stringFlag(ctx.flags, "archived"));
    const activeMinutes = numberFlag(ctx.flags, "active");
    const search = stringFlag(ctx.flags, "search");
    const agentId = stringFlag(ctx.flags, "agent");
    const label = stringFlag(ctx.flags, "label");
    const result = await ctx.client.sessionsList({
      includeDerivedTitles: true,
      ...(kinds ? { kinds } : {}),
      ...(limit !== undefined ? { limit } : {}),
      ...(offset !== undefined ? { offset } : {}),
      ...(activeMinutes !== undefined ? { activeMinutes } : {}),
      ...(search ? { search } : {}),
      ...(agentId ? { agentId } : {}),
      ...(label ? { label } : {}),
      ...(archived !== undefined ? { archived } : {}),
    });
    const now = Date.now();
    output(ctx, result, () =>
      result.count === 0
        ? ""
        : table(
            ["key", "kind", "channel", "updated", "title"],
            result.sessions.map((row) => [
              row.key,
              row.kind,
              row.channel,
              timeAgo(row.updatedAt, now),
              cell(title(row), 60),
            ]),
          ),
    );
    if (result.count === 0) note(ctx, "no sessions");
    if (result.hasMore)
      note(
        ctx,
        result.nextOffset !== undefined
          ? `(more sessions: raise --limit, or --offset ${result.nextOffset})`
          : "(more sessions: raise --limit)",
      );
    return EXIT.ok;
  },
};

export const historyCommand: Command = {
  name: "history",
  usage: "history [session] [--limit N] [--tools]",
  summary: "a session's transcript, made safe (sessions_history)",
  details: `[session] (default: your own, "current") is a key (agent:main:main, or your agent's short key like main) or a sessionId.
Options:
  --limit N   the newest N messages, default ${DEFAULT_HISTORY_LIMIT}, at most 1000
  --tools     include tool results
Example: switchboard history main --limit 10`,
  flags: { limit: "string", tools: "boolean" },
  async run(ctx) {
    const sessionKey = ctx.positionals[0] ?? "current";
    const limit = numberFlag(ctx.flags, "limit") ?? DEFAULT_HISTORY_LIMIT;
    const page = await ctx.client.sessionsHistory({
      sessionKey,
      limit,
      includeTools: ctx.flags.tools === true,
    });
    if (isToolFailure(page)) return refusal(ctx, page) ?? EXIT.failed;
    output(ctx, page, () => transcriptText(page.messages));
    if (page.messages.length === 0) note(ctx, `${page.sessionKey}: no messages`);
    else if (page.hasMore)
      note(ctx, `(the newest ${page.messages.length} of ${page.totalMessages} messages; --limit shows more)`);
    return EXIT.ok;
  },
};

export const statusCommand: Command = {
  name: "status",
  usage: "status [session] [--model M]",
  summary: "a session's status card (session_status); default: the requester's own",
  details: `Options:
  --model M   set the session's model override (a configured model; "default" clears it)
Example: switchboard status agent:main:main`,
  flags: { model: "string" },
  async run(ctx) {
    const sessionKey = ctx.positionals[0];
    const model = stringFlag(ctx.flags, "model");
    const card = await ctx.client.sessionStatus({
      ...(sessionKey ? { sessionKey } : {}),
      ...(model ? { model } : {}),
    });
    if (isToolFailure(card)) return refusal(ctx, card) ?? EXIT.failed;
    output(ctx, card, () => card.statusText);
    return EXIT.ok;
  },
};

export const agentsCommand: Command = {
  name: "agents",
  usage: "agents",
  summary: "the agent ids you may spawn (agents_list)",
  details: "Example: switchboard agents",
  flags: {},
  async run(ctx) {
    const result = await ctx.client.agentsList();
    output(ctx, result, () =>
      table(
        ["agent", "label", "sandboxed"],
        result.agents.map((agent) => [agent.id, agent.label ?? "", agent.sandboxed ? "yes" : "no"]),
      ),
    );
    return EXIT.ok;
  },
};

export const healthCommand: Command = {
  name: "health",
  usage: "health",
  summary: "is the service up, and which version (GET /healthz; no token needed)",
  details: "Example: switchboard health --url http://127.0.0.1:8787",
  flags: {},
  async run(ctx) {
    const health = await ctx.client.healthz();
    output(ctx, health, () => `ok, version ${health.version}`);
    return EXIT.ok;
  },
};

export const createCommand: Command = {
  name: "create",
  usage: "create <session> [--label L] [--name NAME]",
  summary: "create a session (POST /v1/sessions); an agent token creates its own agent's sessions",
  details: `<session> is a full key (agent:research:main), or your agent's short key (main, webchat:group:lab).
Options:
  --label L     a label, to find it by (sessions_send --label, list --label)
  --name NAME   its display name
Example: switchboard create agent:research:main --token local-admin-token`,
  flags: { label: "string", name: "string" },
  async run(ctx) {
    const key = required(ctx, 0, "session");
    const label = stringFlag(ctx.flags, "label");
    const displayName = stringFlag(ctx.flags, "name");
    const row = await ctx.client.createSession({
      key,
      ...(label ? { label } : {}),
      ...(displayName ? { displayName } : {}),
    });
    output(ctx, row, () => `created ${row.key}`);
    return EXIT.ok;
  },
};
