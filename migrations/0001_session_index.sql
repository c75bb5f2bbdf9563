-- The session index: one row per session, written only by the session's Durable Object (through its
-- outbox), read by sessions_list and reference resolution. docs/storage-schema.md explains each column.
CREATE TABLE session_index (
  session_key TEXT PRIMARY KEY,
  session_id TEXT NOT NULL UNIQUE,
  agent_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  channel TEXT NOT NULL,
  chat_type TEXT,
  label TEXT,
  display_name TEXT,
  subject TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  model TEXT,
  model_override INTEGER NOT NULL DEFAULT 0,
  thinking_level TEXT,
  verbose_level TEXT,
  send_policy TEXT,
  context_tokens INTEGER,
  input_tokens INTEGER,
  output_tokens INTEGER,
  total_tokens INTEGER,
  estimated_cost_usd REAL,
  status TEXT,
  started_at INTEGER,
  ended_at INTEGER,
  runtime_ms INTEGER,
  spawned_by TEXT,
  parent_session_key TEXT,
  spawn_depth INTEGER NOT NULL DEFAULT 0,
  system_sent INTEGER,
  aborted_last_run INTEGER,
  last_channel TEXT,
  last_to TEXT,
  delivery_context TEXT,
  derived_title TEXT,
  last_message_preview TEXT,
  -- 0 listed, 1 archived (left out of default listings), 2 never listed (cron run keys, reserved keys)
  list_state INTEGER NOT NULL DEFAULT 0,
  -- lower-cased display name, label, subject, sessionId and key: what `search` matches
  search_text TEXT NOT NULL,
  -- the object's write counter: an older upsert never overwrites a newer one
  version INTEGER NOT NULL
);

-- Every list query orders by (updated_at DESC, session_key DESC) and pages with a keyset cursor on the
-- same pair, so each index ends with those two columns: a filter reads about `limit` rows. A list query
-- is a UNION ALL of equality branches (one per visible agent or tree part, kind and list state), each
-- served in order by one of these indexes and merged by SQLite (src/index-db/list.ts).
CREATE INDEX session_index_agent ON session_index (agent_id, list_state, updated_at DESC, session_key DESC);
CREATE INDEX session_index_agent_kind ON session_index (agent_id, kind, list_state, updated_at DESC, session_key DESC);
CREATE INDEX session_index_agent_label ON session_index (agent_id, label, list_state, updated_at DESC, session_key DESC);
-- The tree scope's children: spawned by the requester and of its own agent (other agents' are cross-agent).
CREATE INDEX session_index_spawned_by ON session_index (spawned_by, agent_id, list_state, updated_at DESC, session_key DESC);

-- Substring search over search_text: a trigram FTS5 index kept in step by triggers.
CREATE VIRTUAL TABLE session_search USING fts5 (
  search_text,
  content = 'session_index',
  content_rowid = 'rowid',
  tokenize = 'trigram'
);
CREATE TRIGGER session_index_search_insert AFTER INSERT ON session_index BEGIN
  INSERT INTO session_search (rowid, search_text) VALUES (new.rowid, new.search_text);
END;
CREATE TRIGGER session_index_search_delete AFTER DELETE ON session_index BEGIN
  INSERT INTO session_search (session_search, rowid, search_text) VALUES ('delete', old.rowid, old.search_text);
END;
CREATE TRIGGER session_index_search_update AFTER UPDATE OF search_text ON session_index BEGIN
  INSERT INTO session_search (session_search, rowid, search_text) VALUES ('delete', old.rowid, old.search_text);
  INSERT INTO session_search (rowid, search_text) VALUES (new.rowid, new.search_text);
END;

-- runId → session key, so a run can be found from its id alone (runs start in the next migration set).
CREATE TABLE run_index (
  run_id TEXT PRIMARY KEY,
  session_key TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX run_index_session ON run_index (session_key);
