-- Transcript search (SPEC §18): one row per indexed message of every session, written only by the
-- session's Durable Object through its outbox (src/session/search-index.ts), read by sessions_search.
-- `text` is what the tool may show: assistant text cleaned and every text redacted (as sessions_history
-- does) before it is stored, so no secret reaches the index. User and assistant text; tool results
-- (role toolResult/tool) are kept too and found only with includeTools; reasoning, images and
-- attachments never. A message is written once per session generation: (session_id, message_id) is
-- unique, so a retried batch inserts nothing twice. AUTOINCREMENT: an id is never reused, even after
-- the newest rows were deleted, so a cursor's pinned high-water mark keeps out every later message.
-- `scope` holds the scope tokens (src/index-db/search-scope.ts: the session, its agent, its parent), so
-- a search's MATCH names the caller's scope and FTS5 ranks only the matches the caller may see.
CREATE TABLE search_message (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_key TEXT NOT NULL,
  session_id TEXT NOT NULL,
  message_id TEXT NOT NULL,
  role TEXT NOT NULL,
  timestamp INTEGER NOT NULL,
  text TEXT NOT NULL,
  scope TEXT NOT NULL,
  UNIQUE (session_id, message_id)
);
-- A session's rows, to delete them with the session (and a re-created key's leftovers).
CREATE INDEX search_message_session ON search_message (session_key, session_id);

-- The FTS5 index over search_message.text and .scope (external content: the text is stored once). Its
-- rowid is search_message.id, which only grows: a cursor pins the newest rowid of its first page.
CREATE VIRTUAL TABLE search_fts USING fts5 (
  text,
  scope,
  content = 'search_message',
  content_rowid = 'id',
  tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER search_message_insert AFTER INSERT ON search_message BEGIN
  INSERT INTO search_fts (rowid, text, scope) VALUES (new.id, new.text, new.scope);
END;
CREATE TRIGGER search_message_delete AFTER DELETE ON search_message BEGIN
  INSERT INTO search_fts (search_fts, rowid, text, scope) VALUES ('delete', old.id, old.text, old.scope);
END;

-- 1 while the session's transcript is not fully indexed yet (an import's backlog, indexed in bounded
-- chunks): sessions_search then answers `indexing: true`. Set and cleared by the session's index
-- passes; the row upsert (src/index-db/write.ts) names only its own columns, so it keeps this one.
ALTER TABLE session_index ADD COLUMN search_backlog INTEGER NOT NULL DEFAULT 0;
-- Only the sessions behind, so asking "is any visible session behind?" reads those rows alone.
CREATE INDEX session_index_search_backlog ON session_index (search_backlog) WHERE search_backlog = 1;

-- A deleted session's index row takes its messages with it, in the same D1 transaction (one statement,
-- however large the session). A search batch still in flight then inserts nothing: each insert requires
-- the session's index row (src/index-db/search-write.ts).
CREATE TRIGGER session_index_search_delete AFTER DELETE ON session_index BEGIN
  DELETE FROM search_message WHERE session_key = old.session_key AND session_id = old.session_id;
END;
