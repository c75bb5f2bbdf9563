-- A chat platform channel's own state (SPEC §21), one row per channel, in shard 0 (`DB`, the home of
-- the global tables): who the bot is on its platform (Telegram getMe, Slack auth.test), cached so an
-- isolate asks the platform once rather than once per start, and its last inbound request (what it
-- was, and how many were acknowledged but ignored) for `switchboard channels status`. Read and written
-- by primary key only.
CREATE TABLE channel_state (
  channel TEXT PRIMARY KEY,
  -- SHA-256 (first 16 hex digits) of the bot token the identity was read with: a new token asks again.
  token_fingerprint TEXT,
  bot_id TEXT,
  bot_username TEXT,
  identity_at INTEGER,
  last_inbound_at INTEGER,
  -- accepted | context | command | blocked | dropped | ignored | duplicate
  last_inbound_outcome TEXT,
  last_ignored_reason TEXT,
  ignored_count INTEGER NOT NULL DEFAULT 0
);
