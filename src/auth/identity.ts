import { z } from "zod";
import { findGrant } from "../index-db/grants";
import { sessionApi } from "../session/client";
import { secretMatches, secretsEqual } from "./constant-time";
import { type GrantScope, hashGrantSecret, looksLikeGrantToken, parseGrantToken } from "./grant-token";
import { rootKeys } from "./purpose-keys";
import { looksLikeRunToken, type RunTokenClaims, verifyRunToken } from "./run-token";

/** Who is calling, as proven by the bearer token (SPEC §3). */
export type Identity =
  | { kind: "operator" }
  | { kind: "agent"; agentId: string }
  | { kind: "run"; claims: RunTokenClaims }
  | {
      kind: "grant";
      grantId: string;
      sessionKey: string;
      sessionId: string;
      scopes: GrantScope[];
      expiresAt: number;
    };

const agentTokensSchema = z.record(z.string(), z.string().min(1));

let cachedAgentTokens: { raw: string | undefined; tokens: [string, string][] } | undefined;

/** The agent-token map from the SWITCHBOARD_AGENT_TOKENS secret (agentId → token). */
function agentTokens(raw: string | undefined): [string, string][] {
  if (cachedAgentTokens && cachedAgentTokens.raw === raw) return cachedAgentTokens.tokens;
  let tokens: [string, string][] = [];
  try {
    const parsed = agentTokensSchema.safeParse(raw ? JSON.parse(raw) : {});
    tokens = parsed.success
      ? Object.entries(parsed.data).map(([id, token]) => [id.toLowerCase(), token])
      : [];
  } catch {
    // A malformed secret grants nothing rather than failing every request.
  }
  cachedAgentTokens = { raw, tokens };
  return tokens;
}

/** The bearer token of an Authorization header, if it has one. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match?.[1];
}

/**
 * A grant token's identity (SPEC §18): its row by id, then its secret's hash compared in constant time;
 * unknown, revoked and expired grants are all simply not valid, and so is a grant whose session is gone
 * or was made again under its key (SPEC §23: a grant is its session's, not its key's).
 */
async function authenticateGrant(
  env: Pick<Env, "DB" | "SESSION">,
  token: string,
): Promise<Identity | undefined> {
  const parsed = parseGrantToken(token);
  if (!parsed) return undefined;
  const found = await findGrant(env.DB, parsed.grantId);
  if (!found) return undefined;
  if (!(await secretsEqual(await hashGrantSecret(parsed.secret), found.secretHash))) return undefined;
  const { grant } = found;
  if (grant.revokedAt !== undefined || Date.now() >= grant.expiresAt) return undefined;
  if (grant.sessionId === undefined) return undefined;
  const live = await sessionApi(env.SESSION, grant.sessionKey).describe();
  if (!live.ok || live.value.sessionId !== grant.sessionId) return undefined;
  return {
    kind: "grant",
    grantId: grant.grantId,
    sessionKey: grant.sessionKey,
    sessionId: grant.sessionId,
    scopes: grant.scopes,
    expiresAt: grant.expiresAt,
  };
}

/** Resolves a bearer token to an identity; undefined for anything not valid. */
export async function authenticate(
  env: Pick<
    Env,
    | "DB"
    | "SESSION"
    | "SWITCHBOARD_ADMIN_TOKEN"
    | "SWITCHBOARD_AGENT_TOKENS"
    | "SWITCHBOARD_SIGNING_KEY"
    | "SWITCHBOARD_SIGNING_KEY_PREVIOUS"
  >,
  token: string | undefined,
): Promise<Identity | undefined> {
  if (!token) return undefined;
  if (looksLikeGrantToken(token)) return authenticateGrant(env, token);
  if (looksLikeRunToken(token)) {
    const roots = rootKeys(env);
    if (roots.length === 0) return undefined;
    const claims = await verifyRunToken(roots, token);
    return claims ? { kind: "run", claims } : undefined;
  }
  // Compared with the admin token and every agent token at once, not stopping at a match, so timing
  // says nothing about which (and the token is hashed once).
  const admin = env.SWITCHBOARD_ADMIN_TOKEN;
  const agents = agentTokens(env.SWITCHBOARD_AGENT_TOKENS);
  const matches = await secretMatches(token, [...(admin ? [admin] : []), ...agents.map(([, t]) => t)]);
  if (admin && matches[0]) return { kind: "operator" };
  const agentMatches = admin ? matches.slice(1) : matches;
  const match = agents.find((_, i) => agentMatches[i])?.[0];
  return match ? { kind: "agent", agentId: match } : undefined;
}
