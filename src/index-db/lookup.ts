import type { SessionRecord } from "../session/api";

/**
 * The index fields needed to resolve and check a reference to a session: a part of the session record,
 * plus the derived `channel` that sends are checked against.
 */
export type SessionRef = Pick<
  SessionRecord,
  "sessionKey" | "sessionId" | "agentId" | "spawnedBy" | "spawnDepth" | "chatType" | "sendPolicy"
> & { channel: string };

const chatTypes: ReadonlySet<unknown> = new Set(["direct", "group", "channel"]);

const REF_COLUMNS =
  "session_key, session_id, agent_id, spawned_by, spawn_depth, channel, chat_type, send_policy";

function toRef(row: Record<string, unknown> | null): SessionRef | undefined {
  if (!row) return undefined;
  return {
    sessionKey: String(row.session_key),
    sessionId: String(row.session_id),
    agentId: String(row.agent_id),
    ...(row.spawned_by ? { spawnedBy: String(row.spawned_by) } : {}),
    spawnDepth: Number(row.spawn_depth ?? 0),
    channel: String(row.channel ?? "unknown"),
    ...(chatTypes.has(row.chat_type) ? { chatType: row.chat_type as SessionRef["chatType"] } : {}),
    ...(row.send_policy === "allow" || row.send_policy === "deny" ? { sendPolicy: row.send_policy } : {}),
  };
}

/** The indexed session with this canonical key (primary key lookup). */
export async function findSessionByKey(db: D1Database, sessionKey: string): Promise<SessionRef | undefined> {
  return toRef(
    await db
      .prepare(`SELECT ${REF_COLUMNS} FROM session_index WHERE session_key = ?`)
      .bind(sessionKey)
      .first(),
  );
}

/** The indexed sessions with these canonical keys, by key: several primary-key lookups in one read. */
export async function findSessionsByKeys(
  db: D1Database,
  sessionKeys: string[],
): Promise<Map<string, SessionRef>> {
  const { results } = await db
    .prepare(
      `SELECT ${REF_COLUMNS} FROM session_index WHERE session_key IN (${sessionKeys.map(() => "?").join(", ")})`,
    )
    .bind(...sessionKeys)
    .all<Record<string, unknown>>();
  const refs = results.flatMap((row) => toRef(row) ?? []);
  return new Map(refs.map((ref) => [ref.sessionKey, ref]));
}

/** The indexed session with this sessionId (unique index lookup). */
export async function findSessionById(db: D1Database, sessionId: string): Promise<SessionRef | undefined> {
  return toRef(
    await db
      .prepare(`SELECT ${REF_COLUMNS} FROM session_index WHERE session_id = ?`)
      .bind(sessionId.toLowerCase())
      .first(),
  );
}

/** How many sessions this session spawned, by run status ("idle" for none yet). */
export async function countChildrenByStatus(
  db: D1Database,
  sessionKey: string,
): Promise<Record<string, number>> {
  const { results } = await db
    .prepare(
      "SELECT COALESCE(status, 'idle') AS status, COUNT(*) AS n FROM session_index WHERE spawned_by = ? GROUP BY 1",
    )
    .bind(sessionKey)
    .all<{ status: string; n: number }>();
  return Object.fromEntries(results.map((row) => [row.status, row.n]));
}

/** Sessions of an agent carrying this exact label (two at most: enough to call it ambiguous). */
export async function findSessionsByLabel(
  db: D1Database,
  agentId: string,
  label: string,
  spawnedBy?: string,
): Promise<SessionRef[]> {
  const { results } = await db
    .prepare(
      `SELECT ${REF_COLUMNS} FROM session_index WHERE agent_id = ? AND label = ? AND list_state IN (0, 1)
       ${spawnedBy ? "AND spawned_by = ?" : ""} LIMIT 2`,
    )
    .bind(...(spawnedBy ? [agentId, label, spawnedBy] : [agentId, label]))
    .all<Record<string, unknown>>();
  return results.flatMap((row) => toRef(row) ?? []);
}

/**
 * Claims one of an agent's `maxConcurrent` sub-agent slots for a session about to start a run: its index
 * row is marked running only if fewer than `max` other sub-agent sessions of the agent are. One D1
 * statement, so two sessions checking at once cannot both take the last slot (a count, then a start,
 * could). The claim is the session's record at `version`: it is refused if a newer one is indexed (a kill
 * that ended the run meanwhile), and an index write of this version or older that lands after it (one
 * delivered alongside) cannot undo it, while the next one (the run started or ended) replaces it. False
 * when no slot is free, or the session is not indexed yet; it looks again later.
 */
export async function claimSubagentSlot(
  db: D1Database,
  session: { agentId: string; sessionKey: string; version: number },
  max: number,
): Promise<boolean> {
  const claimed = await db
    .prepare(
      `UPDATE session_index SET status = 'running', version = ?4 WHERE session_key = ?1 AND version <= ?4 AND (
         SELECT COUNT(*) FROM session_index WHERE agent_id = ?2 AND list_state IN (0, 1) AND status = 'running'
           AND spawn_depth > 0 AND session_key != ?1) < ?3`,
    )
    .bind(session.sessionKey, session.agentId, max, session.version)
    .run();
  return claimed.meta.changes > 0;
}

/** Non-collector children of a session that have not finished: no run ended yet, or one running (`maxChildrenPerAgent`). */
export async function countActiveChildren(db: D1Database, sessionKey: string): Promise<number> {
  const row = await db
    .prepare(
      // Collectors count only toward their group's caps (SPEC §15), kept by the requester itself.
      `SELECT COUNT(*) AS n FROM session_index WHERE spawned_by = ? AND list_state IN (0, 1) AND collector = 0
         AND (status IS NULL OR status = 'running')`,
    )
    .bind(sessionKey)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

/** A session's ancestors, nearest first, following `spawned_by` through the index. */
export async function ancestorsOf(db: D1Database, sessionKey: string, maxDepth = 8): Promise<string[]> {
  const ancestors: string[] = [];
  let current = await findSessionByKey(db, sessionKey);
  while (current?.spawnedBy && ancestors.length < maxDepth && !ancestors.includes(current.spawnedBy)) {
    ancestors.push(current.spawnedBy);
    current = await findSessionByKey(db, current.spawnedBy);
  }
  return ancestors;
}

/** Whether a session is a collector child (SPEC §15), as its index row says. */
export async function isCollectorSession(db: D1Database, sessionKey: string): Promise<boolean> {
  const row = await db
    .prepare("SELECT collector FROM session_index WHERE session_key = ?")
    .bind(sessionKey)
    .first<{ collector: number }>();
  return row?.collector === 1;
}
