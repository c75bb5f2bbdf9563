-- The delivery ledger's index (SPEC §16): every session's delivery records, for the operator API
-- (`GET /v1/deliveries`, newest first, filtered by status, session and kind). Written by each session
-- object through its outbox (a record's newer state never loses to an older one: updated_at guards it);
-- the session object's own table is the record of truth.
CREATE TABLE delivery_index (
  delivery_id TEXT PRIMARY KEY,
  session_key TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  run_id TEXT,
  target TEXT NOT NULL,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  next_attempt_at INTEGER,
  last_error TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX delivery_index_newest ON delivery_index (created_at DESC, delivery_id DESC);
CREATE INDEX delivery_index_status ON delivery_index (status, created_at DESC, delivery_id DESC);
CREATE INDEX delivery_index_session ON delivery_index (session_key, created_at DESC, delivery_id DESC);
