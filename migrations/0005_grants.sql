-- Scoped grants (SPEC §18): a token that acts on one session with some of read/send/events until it
-- expires or is revoked. Only a SHA-256 hash of the token's random secret is kept, never the token.
-- Looked up by `grant_id` (the PK) on every request made with a grant token and by DELETE /v1/grants.
CREATE TABLE grants (
  grant_id TEXT PRIMARY KEY,
  secret_hash TEXT NOT NULL,
  session_key TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  scopes TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  revoked_at INTEGER
);
