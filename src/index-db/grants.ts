import { GRANT_SCOPES, type GrantScope } from "../auth/grant-token";
import type { IndexDb } from "./shards";

/** A stored grant, as the routes and authentication read it (never its secret's hash). */
export interface GrantRecord {
  grantId: string;
  sessionKey: string;
  /** The session the grant was made for: a later session under the same key is not it (SPEC §23). */
  sessionId?: string;
  agentId: string;
  scopes: GrantScope[];
  createdAt: number;
  expiresAt: number;
  revokedAt?: number;
}

interface GrantRow {
  grant_id: string;
  secret_hash: string;
  session_key: string;
  session_id: string | null;
  agent_id: string;
  scopes: string;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
}

/** Scopes are stored comma-separated; anything unknown read back is dropped rather than trusted. */
function scopesOf(stored: string): GrantScope[] {
  return GRANT_SCOPES.filter((scope) => stored.split(",").includes(scope));
}

function grantOf(row: GrantRow): GrantRecord {
  return {
    grantId: row.grant_id,
    sessionKey: row.session_key,
    ...(row.session_id !== null ? { sessionId: row.session_id } : {}),
    agentId: row.agent_id,
    scopes: scopesOf(row.scopes),
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    ...(row.revoked_at !== null ? { revokedAt: row.revoked_at } : {}),
  };
}

/** Stores a new grant with the hash of its secret (one write). */
export async function insertGrant(
  db: IndexDb,
  grant: Omit<GrantRecord, "revokedAt" | "sessionId"> & { sessionId: string },
  secretHash: string,
): Promise<void> {
  await db
    .prepare(
      `INSERT INTO grants (grant_id, secret_hash, session_key, session_id, agent_id, scopes, created_at,
       expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .bind(
      grant.grantId,
      secretHash,
      grant.sessionKey,
      grant.sessionId,
      grant.agentId,
      grant.scopes.join(","),
      grant.createdAt,
      grant.expiresAt,
    )
    .run();
}

/** A grant and its secret's hash, by id (primary key lookup), revoked or expired ones included. */
export async function findGrant(
  db: IndexDb,
  grantId: string,
): Promise<{ grant: GrantRecord; secretHash: string } | undefined> {
  const row = await db.prepare("SELECT * FROM grants WHERE grant_id = ?").bind(grantId).first<GrantRow>();
  return row ? { grant: grantOf(row), secretHash: row.secret_hash } : undefined;
}

/** Marks a grant revoked at `now`; revoking twice keeps the first time. */
export async function revokeGrant(db: IndexDb, grantId: string, now: number): Promise<void> {
  await db
    .prepare("UPDATE grants SET revoked_at = COALESCE(revoked_at, ?) WHERE grant_id = ?")
    .bind(now, grantId)
    .run();
}

/**
 * Deletes the grants made for one session (its deletion: SPEC §23 "Deletion deletes"), and any left
 * unbound from before grants kept their session; a later session under the same key keeps its own. A
 * deleted grant's token answers 401 as a revoked one's does: nothing is left to find it by.
 */
export async function deleteSessionGrants(
  db: IndexDb,
  session: { sessionKey: string; sessionId: string },
): Promise<void> {
  await db
    .prepare("DELETE FROM grants WHERE session_key = ? AND (session_id = ? OR session_id IS NULL)")
    .bind(session.sessionKey, session.sessionId)
    .run();
}

/** How many grants `GET /v1/grants` lists at most, newest first (expired ones leave after 7 days). */
export const MAX_LISTED_GRANTS = 500;

/** Grants newest first, every agent's or one agent's; never a secret's hash. */
export async function listGrants(db: IndexDb, agentId?: string): Promise<GrantRecord[]> {
  const { results } = await db
    .prepare(
      `SELECT grant_id, session_key, session_id, agent_id, scopes, created_at, expires_at, revoked_at FROM grants
       WHERE ?1 IS NULL OR agent_id = ?1 ORDER BY created_at DESC, grant_id LIMIT ?2`,
    )
    .bind(agentId ?? null, MAX_LISTED_GRANTS)
    .all<Omit<GrantRow, "secret_hash">>();
  return results.map((row) => grantOf({ ...row, secret_hash: "" }));
}
