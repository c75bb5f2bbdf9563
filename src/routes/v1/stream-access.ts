import type { Context } from "hono";
import type { AppEnv } from "../../app-env";
import { bearerToken, type Identity } from "../../auth/identity";
import { keyOptionsOf } from "../../config/key-options";
import { AppError, badRequest } from "../../errors";
import { findGrant } from "../../index-db/grants";
import { findSessionByKey } from "../../index-db/lookup";
import { readShards } from "../../index-db/shards";
import { canonicalizeKeyInput } from "../../keys";
import { checkSessionVisible, visibilityConfigOf } from "../../policy/visibility";
import { type CredentialLapse, guardStream } from "../../sse/guard";
import { identify } from "../middleware";
import { canonicalKeyForRequest } from "./session-access";

/** A session whose stream a reader may or may not follow. */
export interface StreamTarget {
  sessionKey: string;
  agentId: string;
  spawnedBy?: string;
  /** The spawner's session (SPEC §23): a run token of a later session of its key may not follow it. */
  spawnedById?: string;
}

/**
 * A session as a stream reader is checked against: a spawned one with its spawner's session id, from
 * the index (one read, sub-agent sessions only: the row an object describes does not carry it).
 */
export async function streamTarget(
  c: Context<AppEnv>,
  sessionKey: string,
  row: { agentId: string; spawnedBy?: string },
): Promise<StreamTarget> {
  if (!row.spawnedBy) return { sessionKey, agentId: row.agentId };
  const spawnedById = (await findSessionByKey(readShards(c.env), sessionKey))?.spawnedById;
  return {
    sessionKey,
    agentId: row.agentId,
    spawnedBy: row.spawnedBy,
    ...(spawnedById ? { spawnedById } : {}),
  };
}

/**
 * Who reads a stream, and which sessions' events it may see (SPEC §14): the operator any (and the
 * exact messages with `raw`); an agent token its own agent's sessions; a run token the sessions its
 * session may read the history of (SPEC §4). Checked for every session a tree stream adds.
 */
export interface StreamReader {
  raw: boolean;
  /** A grant's reader: the object takes other sessions' keys out of what it streams (`?confine=1`). */
  confine: boolean;
  mayRead: (target: StreamTarget) => boolean;
}

/** The canonical key a stream path names, for the credential at hand (run tokens included). */
export function streamKey(c: Context<AppEnv>, rawKey: string): string {
  const identity = c.get("identity");
  if (identity.kind !== "run") return canonicalKeyForRequest(identity, c.get("config"), rawKey);
  const key = canonicalizeKeyInput(rawKey, identity.claims.agentId, keyOptionsOf(c.get("config")));
  if (!key.ok) throw badRequest(`key: ${key.error}`);
  return key.key;
}

function flag(c: Context<AppEnv>, name: string): boolean {
  const value = c.req.query(name);
  if (value === undefined || value === "0" || value === "false") return false;
  if (value === "1" || value === "true") return true;
  throw badRequest(`${name}: use 1 or 0`);
}

export function streamReader(c: Context<AppEnv>): StreamReader {
  const identity: Identity = c.get("identity");
  const raw = flag(c, "raw");
  if (raw && identity.kind !== "operator")
    throw new AppError("forbidden", "raw: the exact messages are for the operator");
  const confine = identity.kind === "grant";
  if (identity.kind === "operator") return { raw, confine, mayRead: () => true };
  if (identity.kind === "agent")
    return { raw, confine, mayRead: (target) => target.agentId === identity.agentId };
  if (identity.kind === "run") {
    const { claims } = identity;
    const requester = {
      agentId: claims.agentId,
      sessionKey: claims.sessionKey,
      ...(claims.sessionId ? { sessionId: claims.sessionId } : {}),
      depth: claims.depth,
      sandboxed: claims.sandboxed,
      isSubagent: claims.depth > 0,
    };
    const visibility = visibilityConfigOf(c.get("config"));
    return {
      raw,
      confine,
      mayRead: (target) => checkSessionVisible(visibility, requester, target, "history").ok,
    };
  }
  // A grant (its `events` scope checked before the route) reads exactly its one session.
  return { raw, confine, mayRead: (target) => target.sessionKey === identity.sessionKey };
}

/** The stream query a reader's view adds: the exact messages (`raw`), or a grant's confined view. */
export function viewQuery(reader: Pick<StreamReader, "raw" | "confine">): Record<string, string> {
  return { ...(reader.raw ? { raw: "1" } : {}), ...(reader.confine ? { confine: "1" } : {}) };
}

/** Whether a stream was asked for the session's sub-agent tree too (`?tree=1`). */
export function wantsTree(c: Context<AppEnv>): boolean {
  return flag(c, "tree");
}

/**
 * The cursor a stream resumes from: `Last-Event-ID` (what EventSource sends on reconnect) or `?after=`;
 * undefined for neither. A session cursor is a seq; a tree stream's is its own composite id.
 */
export function streamCursor(c: Context<AppEnv>): { value: string; field: string } | undefined {
  const header = c.req.header("Last-Event-ID");
  if (header !== undefined && header.trim() !== "") return { value: header.trim(), field: "Last-Event-ID" };
  const after = c.req.query("after");
  return after === undefined ? undefined : { value: after, field: "after" };
}

/** A seq cursor: a non-negative integer (the head check is the session object's). */
export function seqCursor(cursor: { value: string; field: string }): number {
  if (!/^\d{1,15}$/.test(cursor.value)) throw badRequest(`${cursor.field}: must be a non-negative integer`);
  return Number(cursor.value);
}

/**
 * A stream answered to this request, closed once its credential stops holding (SPEC §14, §18): a grant
 * revoked, expired or whose session is gone, a run token whose run ended over a minute ago. Operator and
 * agent tokens do not lapse while a stream is open: theirs is returned as it is.
 */
export function guardedStream(c: Context<AppEnv>, response: Response): Response {
  const identity = c.get("identity");
  if (!response.ok || (identity.kind !== "grant" && identity.kind !== "run")) return response;
  const env = c.env;
  const token = bearerToken(c.req.header("Authorization"));
  const expiresAt = identity.kind === "grant" ? identity.expiresAt : identity.claims.exp * 1000;
  // Asked only once the credential failed: a grant past its time expired, any other failure revoked it.
  const lapse = async (): Promise<CredentialLapse> => {
    if (identity.kind === "run") return "expired";
    const grant = (await findGrant(env.DB, identity.grantId))?.grant;
    if (!grant || grant.revokedAt !== undefined) return "revoked";
    return Date.now() >= grant.expiresAt ? "expired" : "revoked";
  };
  return guardStream(response, {
    check: async () => ((await identify(env, token)) ? undefined : lapse()),
    expiresAt,
  });
}
