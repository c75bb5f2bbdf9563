import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { agentToAgentContext } from "../../src/messaging/a2a-context";
import { interSessionTurn } from "../../src/messaging/inter-session";
import type { ReplyFlow } from "../../src/session/api";
import { session, stub } from "../support";

// The canary scan of SPEC §23's erasure tests: a unique string looked for in every table of every index
// shard and of every session object involved, as bytes, so FTS segments and blobs are read too.

/** A canary: lower case (FTS keeps terms lower-cased), unique to the test. */
export const newCanary = () => `canary${crypto.randomUUID().replaceAll("-", "")}`;

type Exec = (query: string, ...binds: unknown[]) => Promise<Record<string, unknown>[]>;

/** Every user table's hits (`table: n`) of the canary, read through `exec`. */
async function scan(exec: Exec, canary: string): Promise<Record<string, number>> {
  const tables = await exec(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'",
  );
  const hits: Record<string, number> = {};
  for (const { name } of tables) {
    const columns = await exec(`SELECT name FROM pragma_table_info('${String(name)}')`);
    if (columns.length === 0) continue;
    const where = columns
      .map((column) => `instr(CAST("${String(column.name)}" AS BLOB), CAST(?1 AS BLOB)) > 0`)
      .join(" OR ");
    const [row] = await exec(`SELECT COUNT(*) AS n FROM "${String(name)}" WHERE ${where}`, canary);
    const n = Number(row?.n ?? 0);
    if (n > 0) hits[String(name)] = n;
  }
  return hits;
}

/** The canary's hits in every D1 index shard (`DB`, `DB_1`, `DB_2`), by `shard.table`. */
export async function scanShards(canary: string): Promise<Record<string, number>> {
  const shards = { DB: env.DB, DB_1: env.DB_1, DB_2: env.DB_2 } as Record<string, D1Database | undefined>;
  const hits: Record<string, number> = {};
  for (const [name, db] of Object.entries(shards)) {
    if (!db) continue;
    const exec: Exec = async (query, ...binds) =>
      (
        await db
          .prepare(query)
          .bind(...binds)
          .all<Record<string, unknown>>()
      ).results;
    for (const [table, n] of Object.entries(await scan(exec, canary))) hits[`${name}.${table}`] = n;
  }
  return hits;
}

/** The canary's hits in these session objects' SQLite, by `key table`. */
export async function scanObjects(keys: string[], canary: string): Promise<Record<string, number>> {
  const hits: Record<string, number> = {};
  for (const key of keys) {
    const found = await runInDurableObject(stub(key), (_instance, state) => {
      const exec: Exec = async (query, ...binds) => state.storage.sql.exec(query, ...binds).toArray();
      return scan(exec, canary);
    });
    for (const [table, n] of Object.entries(found)) hits[`${key} ${table}`] = n;
  }
  return hits;
}

/**
 * What `sessions_send` writes into `targetKey` for `requesterKey` (the same builder, flow and context),
 * put through the target's RPC: the test config's `tree` visibility lets a session send only to its own
 * children, and an erasure must be shown reaching a session that is not one.
 */
export async function exchange(requesterKey: string, targetKey: string, message: string): Promise<string> {
  const runId = crypto.randomUUID();
  const flow: ReplyFlow = {
    flowId: runId,
    requesterKey,
    targetKey,
    originalMessage: message,
    maxTurns: 2,
    stepTimeoutMs: 30_000,
    hop: 1,
    stage: "request",
    turn: 0,
  };
  const agentOf = (key: string) => key.split(":")[1] ?? "";
  const turn = interSessionTurn({
    runId,
    text: message,
    from: { sessionKey: requesterKey, channel: "unknown" },
    header: { sessionKey: requesterKey, channel: "unknown", tool: "sessions_send" },
    hop: 1,
    context: agentToAgentContext(
      { agentId: agentOf(requesterKey), sessionKey: requesterKey, channel: "unknown" },
      { agentId: agentOf(targetKey), sessionKey: targetKey, channel: "unknown" },
    ),
    flow,
  });
  const queued = await session(targetKey).enqueueTurn(turn);
  if (!queued.ok) throw new Error(queued.message);
  return runId;
}
