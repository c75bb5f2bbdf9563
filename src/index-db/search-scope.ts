/**
 * Scope tokens (migrations/0007 `search_message.scope`): what a message's FTS5 row says about whose it
 * is, so a search's MATCH can ask for the caller's scope next to the words and FTS5 ranks only those
 * matches, instead of every match of every tenant before the visibility join. A token is a digest (letters
 * and digits only, one unicode61 token whatever the key holds); a collision only lets a foreign match
 * through to the visibility join, which stays the authority.
 */

/** 64-bit FNV-1a of the UTF-16 code units, as 16 hex digits. */
function digest(value: string): string {
  let hash = 0xcbf29ce484222325n;
  for (let i = 0; i < value.length; i++) {
    hash ^= BigInt(value.charCodeAt(i));
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash.toString(16).padStart(16, "0");
}

/** The session itself (self scope, an explicit sessionKey). */
export const sessionToken = (sessionKey: string) => `s${digest(sessionKey)}`;
/** Every session its parent spawned (the parent's tree scope). */
export const parentToken = (spawnedBy: string) => `p${digest(spawnedBy)}`;
/** Every session of the agent (agent scopes). */
export const agentToken = (agentId: string) => `a${digest(agentId)}`;

/** A message row's scope column: its session, its agent, and its parent when it was spawned. */
export function scopeColumn(session: { sessionKey: string; agentId: string; spawnedBy?: string }): string {
  const tokens = [sessionToken(session.sessionKey), agentToken(session.agentId)];
  if (session.spawnedBy) tokens.push(parentToken(session.spawnedBy));
  return tokens.join(" ");
}
