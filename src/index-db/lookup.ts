import type { SessionRecord } from "../session/api";
import { ownChild, ownChildOf } from "./generations";
import {
  agentShards,
  everyShard,
  type IndexDb,
  type IndexShards,
  keyShard,
  keysByShard,
  routedByKey,
} from "./shards";

/**
 * The index fields needed to resolve and check a reference to a session: a part of the session record,
 * plus the derived `channel` that sends are checked against.
 */
export type SessionRef = Pick<
  SessionRecord,
  | "sessionKey"
  | "sessionId"
  | "agentId"
  | "spawnedBy"
  | "spawnedById"
  | "spawnDepth"
  | "chatType"
  | "sendPolicy"
> & { channel: string };

const chatTypes: ReadonlySet<unknown> = new Set(["direct", "group", "channel"]);

const REF_COLUMNS =
  "session_key, session_id, agent_id, spawned_by, spawned_by_id, spawn_depth, channel, chat_type, send_policy";

function toRef(row: Record<string, unknown> | null): SessionRef | undefined {
  if (!row) return undefined;
  return {
    sessionKey: String(row.session_key),
    sessionId: String(row.session_id),
    agentId: String(row.agent_id),
    ...(row.spawned_by ? { spawnedBy: String(row.spawned_by) } : {}),
    ...(row.spawned_by_id ? { spawnedById: String(row.spawned_by_id) } : {}),
    spawnDepth: Number(row.spawn_depth ?? 0),
    channel: String(row.channel ?? "unknown"),
    ...(chatTypes.has(row.chat_type) ? { chatType: row.chat_type as SessionRef["chatType"] } : {}),
    ...(row.send_policy === "allow" || row.send_policy === "deny" ? { sendPolicy: row.send_policy } : {}),
  };
}

/** The indexed session with this canonical key (primary key lookup, in the key's shard). */
export async function findSessionByKey(
  shards: IndexShards,
  sessionKey: string,
): Promise<SessionRef | undefined> {
  return toRef(
    await keyShard(shards, sessionKey)
      .prepare(`SELECT ${REF_COLUMNS} FROM session_index WHERE session_key = ?`)
      .bind(sessionKey)
      .first(),
  );
}

/**
 * The indexed sessions with these canonical keys, by key: several primary-key lookups in one read per
 * shard holding any of them.
 */
export async function findSessionsByKeys(
  shards: IndexShards,
  sessionKeys: string[],
): Promise<Map<string, SessionRef>> {
  const parts = await Promise.all(
    [...keysByShard(shards, sessionKeys)].map(async ([db, keys]) => {
      const { results } = await db
        .prepare(
          `SELECT ${REF_COLUMNS} FROM session_index WHERE session_key IN (${keys.map(() => "?").join(", ")})`,
        )
        .bind(...keys)
        .all<Record<string, unknown>>();
      return results;
    }),
  );
  const refs = parts.flat().flatMap((row) => toRef(row) ?? []);
  return new Map(refs.map((ref) => [ref.sessionKey, ref]));
}

/** The indexed session with this sessionId (unique index lookup; a sessionId names no shard: every one). */
export async function findSessionById(
  shards: IndexShards,
  sessionId: string,
): Promise<SessionRef | undefined> {
  const found = await everyShard(shards, (db) =>
    db
      .prepare(`SELECT ${REF_COLUMNS} FROM session_index WHERE session_id = ?`)
      .bind(sessionId.toLowerCase())
      .first(),
  );
  return toRef(found.find((row) => row !== null) ?? null);
}

/**
 * How many sessions this session spawned, by run status ("idle" for none yet). Children may be of
 * other agents (allowAgents), so every shard is counted. With the session's id, only its own children
 * (SPEC §23: not those of an earlier session of its key, deleted since).
 */
export async function countChildrenByStatus(
  shards: IndexShards,
  sessionKey: string,
  sessionId?: string,
): Promise<Record<string, number>> {
  const own = sessionId === undefined ? "" : `AND ${ownChild("?")}`;
  const parts = await everyShard(shards, async (db) => {
    const { results } = await db
      .prepare(
        `SELECT COALESCE(status, 'idle') AS status, COUNT(*) AS n FROM session_index WHERE spawned_by = ? ${own}
         GROUP BY 1`,
      )
      .bind(...(sessionId === undefined ? [sessionKey] : [sessionKey, sessionId]))
      .all<{ status: string; n: number }>();
    return results;
  });
  const counts: Record<string, number> = {};
  for (const row of parts.flat()) counts[row.status] = (counts[row.status] ?? 0) + row.n;
  return counts;
}

/** Sessions of an agent carrying this exact label (two at most: enough to call it ambiguous). */
export async function findSessionsByLabel(
  shards: IndexShards,
  agentId: string,
  label: string,
  spawnedBy?: string,
): Promise<SessionRef[]> {
  const parts = await everyShard(agentShards(shards, agentId), async (db) => {
    const { results } = await db
      .prepare(
        `SELECT ${REF_COLUMNS} FROM session_index WHERE agent_id = ? AND label = ? AND list_state IN (0, 1)
         ${spawnedBy ? "AND spawned_by = ?" : ""} LIMIT 2`,
      )
      .bind(...(spawnedBy ? [agentId, label, spawnedBy] : [agentId, label]))
      .all<Record<string, unknown>>();
    return results;
  });
  return parts
    .flat()
    .slice(0, 2)
    .flatMap((row) => toRef(row) ?? []);
}

/**
 * Claims one of an agent's `maxConcurrent` sub-agent slots for a session about to start a run: its index
 * row is marked running only if fewer than `max` other sub-agent sessions of the agent are. One D1
 * statement in the session's shard, so two sessions checking at once cannot both take the last slot (a
 * count, then a start, could). The claim is the session's record at `version`: it is refused if a newer
 * one is indexed (a kill that ended the run meanwhile), and an index write of this version or older that
 * lands after it (one delivered alongside) cannot undo it, while the next one (the run started or ended)
 * replaces it. False when no slot is free, or the session is not indexed yet; it looks again later.
 */
export async function claimSubagentSlot(
  shards: IndexShards,
  session: { agentId: string; sessionKey: string; version: number },
  max: number,
): Promise<boolean> {
  const home = keyShard(shards, session.sessionKey);
  // An agent's sub-agents (`…:subagent:…` keys) share one shard even when it is routed by key (shards.ts),
  // so for them the count is exact. Only a routed agent's thread children (keyed by their thread) live
  // elsewhere: counted first, they leave fewer slots (two such claims racing may both take the last one).
  const elsewhere = routedByKey(shards, session.agentId)
    ? await everyShard(
        shards.filter((db) => db !== home),
        (db) => runningSubagents(db, session),
      )
    : [];
  const free = max - elsewhere.reduce((sum, n) => sum + n, 0);
  const claimed = await home
    .prepare(
      `UPDATE session_index SET status = 'running', version = ?4 WHERE session_key = ?1 AND version <= ?4 AND (
         SELECT COUNT(*) FROM session_index WHERE agent_id = ?2 AND list_state IN (0, 1) AND status = 'running'
           AND spawn_depth > 0 AND session_key != ?1) < ?3`,
    )
    .bind(session.sessionKey, session.agentId, free, session.version)
    .run();
  return claimed.meta.changes > 0;
}

/** How many of the agent's spawned sessions other than this one run, in one shard. */
async function runningSubagents(
  db: IndexDb,
  session: { agentId: string; sessionKey: string },
): Promise<number> {
  const row = await db
    .prepare(
      `SELECT COUNT(*) AS n FROM session_index WHERE agent_id = ? AND list_state IN (0, 1) AND status = 'running'
         AND spawn_depth > 0 AND session_key != ?`,
    )
    .bind(session.agentId, session.sessionKey)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

/**
 * Non-collector children of a session that have not finished: no run ended yet, or one running
 * (`maxChildrenPerAgent`, `sessions_yield`). Counted in every shard (children may be of other agents).
 * Only the session's own (SPEC §23: not an earlier session of its key, deleted since): `sessionId` may
 * still be being looked up, and the count is read by parent id meanwhile, so a caller that must look
 * the id up too makes one D1 round trip, not two.
 */
export async function countActiveChildren(
  shards: IndexShards,
  sessionKey: string,
  sessionId?: string | Promise<string | undefined>,
): Promise<number> {
  const [parentId, parts] = await Promise.all([
    sessionId,
    everyShard(shards, async (db) => {
      const { results } = await db
        .prepare(
          // Collectors count only toward their group's caps (SPEC §15), kept by the requester itself.
          `SELECT spawned_by_id, COUNT(*) AS n FROM session_index
            WHERE spawned_by = ? AND list_state IN (0, 1) AND collector = 0
              AND (status IS NULL OR status = 'running')
            GROUP BY spawned_by_id`,
        )
        .bind(sessionKey)
        .all<{ spawned_by_id: string | null; n: number }>();
      return results;
    }),
  ]);
  return (
    parts
      .flat()
      // A key with no indexed session (never written, or its row still to come) counts all its children.
      .filter((row) => parentId === undefined || ownChildOf(row.spawned_by_id, parentId))
      .reduce((sum, row) => sum + row.n, 0)
  );
}

/** A session's ancestors, nearest first, following `spawned_by` through the index (each in its key's shard). */
export async function ancestorsOf(shards: IndexShards, sessionKey: string, maxDepth = 8): Promise<string[]> {
  const ancestors: string[] = [];
  let current = await findSessionByKey(shards, sessionKey);
  while (current?.spawnedBy && ancestors.length < maxDepth && !ancestors.includes(current.spawnedBy)) {
    ancestors.push(current.spawnedBy);
    current = await findSessionByKey(shards, current.spawnedBy);
  }
  return ancestors;
}

/** Whether a session is a collector child (SPEC §15), as its index row says. */
export async function isCollectorSession(shards: IndexShards, sessionKey: string): Promise<boolean> {
  const row = await keyShard(shards, sessionKey)
    .prepare("SELECT collector FROM session_index WHERE session_key = ?")
    .bind(sessionKey)
    .first<{ collector: number }>();
  return row?.collector === 1;
}
