import {
  type DeliveriesPage,
  type DeliveriesQuery,
  type DeliveryRecord,
  SwitchboardError,
} from "../../client/src/index";
import { numberFlag, stringFlag } from "./args";
import { type Command, type CommandContext, note, output, required } from "./command";
import { cell, clockTime, table, timeAgo } from "./format";
import { EXIT, UsageError } from "./io";

const ACTIONS = ["list", "show", "retry", "dismiss"] as const;
type Action = (typeof ACTIONS)[number];
const isAction = (value: string): value is Action => (ACTIONS as readonly string[]).includes(value);

/** The listing's filters, as the flags give them; repeated in the next-page hint. */
const FILTER_FLAGS = ["status", "session", "kind", "limit"] as const;

function pageTable(page: DeliveriesPage, now: number): string {
  return table(
    ["id", "kind", "status", "tries", "target", "session", "created", "updated", "last error"],
    page.deliveries.map((record) => [
      record.deliveryId,
      record.kind,
      record.status,
      String(record.attempts),
      cell(record.target, 40),
      record.sessionKey,
      timeAgo(record.createdAt, now),
      timeAgo(record.updatedAt, now),
      cell(record.lastError ?? "", 50),
    ]),
  );
}

/** One record, a field per line, times as dates. */
function recordText(record: DeliveryRecord): string {
  const lines: [string, string | undefined][] = [
    ["delivery", record.deliveryId],
    ["kind", record.kind],
    ["status", record.status],
    ["attempts", String(record.attempts)],
    ["target", record.target],
    ["session", record.sessionKey],
    ["run", record.runId],
    ["next attempt", record.nextAttemptAt === undefined ? undefined : clockTime(record.nextAttemptAt)],
    ["last error", record.lastError],
    ["created", clockTime(record.createdAt)],
    ["updated", clockTime(record.updatedAt)],
  ];
  return lines
    .filter((line): line is [string, string] => line[1] !== undefined)
    .map(([name, value]) => `${`${name}:`.padEnd(14)}${value}`)
    .join("\n");
}

function listQuery(ctx: CommandContext): DeliveriesQuery {
  const status = stringFlag(ctx.flags, "status");
  const sessionKey = stringFlag(ctx.flags, "session");
  const kind = stringFlag(ctx.flags, "kind");
  const cursor = stringFlag(ctx.flags, "cursor");
  const limit = numberFlag(ctx.flags, "limit");
  // The server checks the values (and names the allowed ones); the CLI only passes them on.
  return {
    ...(status ? { status: status as DeliveriesQuery["status"] } : {}),
    ...(sessionKey ? { sessionKey } : {}),
    ...(kind ? { kind: kind as DeliveriesQuery["kind"] } : {}),
    ...(cursor ? { cursor } : {}),
    ...(limit !== undefined ? { limit } : {}),
  };
}

async function list(ctx: CommandContext): Promise<number> {
  const page = await ctx.client.deliveries(listQuery(ctx));
  output(ctx, page, () => (page.count === 0 ? "" : pageTable(page, Date.now())));
  if (page.count === 0) note(ctx, "no deliveries");
  const hidden = page.hiddenByVisibility ?? 0;
  if (hidden > 0)
    note(
      ctx,
      `${hidden === 1 ? "1 record" : `${hidden} records`} of other agents' sessions, addressed to this agent's sessions, not visible to this token (the operator token lists them)`,
    );
  if (page.nextCursor) {
    const filters = FILTER_FLAGS.flatMap((name) => {
      const value = stringFlag(ctx.flags, name);
      return value === undefined ? [] : [`--${name} ${value}`];
    });
    note(ctx, `(more: switchboard deliveries ${[...filters, `--cursor ${page.nextCursor}`].join(" ")})`);
  }
  return EXIT.ok;
}

/**
 * A refusal of one record in the CLI's words: the server's reason (which statuses may, for a 409), then
 * what to do next. Undefined for any other failure, worded as usual.
 */
function refusalMessage(id: string, error: unknown): string | undefined {
  if (!(error instanceof SwitchboardError)) return undefined;
  if (error.kind === "not_found")
    return `delivery ${id} not found (or not your agent's): list the ones you can see with \`switchboard deliveries\``;
  if (error.kind === "conflict")
    return `${error.message}\nsee where it stands: switchboard deliveries show ${id}`;
  return undefined;
}

async function one(ctx: CommandContext, action: Exclude<Action, "list">): Promise<number> {
  const id = required(ctx, 1, "deliveryId");
  let record: DeliveryRecord;
  try {
    record =
      action === "show"
        ? await ctx.client.delivery(id)
        : action === "retry"
          ? await ctx.client.retryDelivery(id)
          : await ctx.client.dismissDelivery(id);
  } catch (error) {
    // Reworded in place: main prints the error (and its code with --json) and picks the exit code.
    const message = refusalMessage(id, error);
    if (message !== undefined && error instanceof SwitchboardError) error.message = message;
    throw error;
  }
  output(ctx, record, () => recordText(record));
  return EXIT.ok;
}

export const deliveriesCommand: Command = {
  name: "deliveries",
  usage:
    "deliveries [list] [--status S] [--session KEY] [--kind K] [--limit N] [--cursor C] | deliveries show|retry|dismiss <deliveryId>",
  summary: "the delivery ledger: list handoffs and where they stand, retry or dismiss one (operator API)",
  details: `A delivery record is one handoff that must reach someone: a sub-agent's completion (completion),
a channel post (announce, reply) or a watch notice (notice). Newest first; kept 7 days after it settles.
Statuses: pending, in_progress, delivered, not_required (intentional silence), failed, suspended
(retries ran out after 30 minutes), dismissed. The operator token sees every record, an agent token
its own agent's, and a line says how many records of other agents' sessions are addressed to its
sessions (a sub-agent of another agent's completion, a watch notice).
Actions:
  list (default)   a table of records, with the next page's command when there is more
  show <id>        one record
  retry <id>       a new attempt series (only suspended, failed or dismissed records)
  dismiss <id>     leave it undelivered on purpose (only pending, failed or suspended records)
Options (list):
  --status S       only this status
  --session KEY    only the records of this session (here a filter, not the requester)
  --kind K         only this kind: completion, announce, reply or notice
  --limit N        records per page, 1–200 (default 50)
  --cursor C       the next page (printed after a full page)
Examples: switchboard deliveries --status suspended
          switchboard deliveries retry d7a0c1e2-5b3f-4e8a-9c6d-0f1e2d3c4b5a`,
  flags: { status: "string", kind: "string", limit: "string", cursor: "string" },
  async run(ctx) {
    const action = ctx.positionals[0] ?? "list";
    if (!isAction(action)) throw new UsageError(`unknown action "${action}": list, show, retry or dismiss`);
    return action === "list" ? list(ctx) : one(ctx, action);
  },
};
