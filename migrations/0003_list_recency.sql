-- Listing order as one integer, so that every list query — search included — walks one index (or the
-- FTS index) in order and stops at the LIMIT. `recency` = updated_at (ms) × 2^20 + slot: newest
-- updatedAt first; sessions updated in the same millisecond take the next free slot (so the one indexed
-- last lists first). Unique, so a search hit finds its row with one index read. Kept by the triggers
-- below, so no writer computes it. (2^20 sessions updated in one millisecond would run past the slots;
-- that write would fail, and its session's outbox keep retrying it.) See docs/storage-schema.md.
ALTER TABLE session_index ADD COLUMN recency INTEGER;
UPDATE session_index SET recency = ranked.value
FROM (
  SELECT rowid AS id, updated_at * 1048576 + ROW_NUMBER() OVER (PARTITION BY updated_at ORDER BY rowid) - 1 AS value
  FROM session_index
) AS ranked
WHERE session_index.rowid = ranked.id;

DROP INDEX session_index_agent;
DROP INDEX session_index_agent_kind;
DROP INDEX session_index_agent_label;
DROP INDEX session_index_spawned_by;
-- Every visible agent (visibility `all` with agent-to-agent open to any agent): no agent branch at all.
CREATE INDEX session_index_recent ON session_index (list_state, recency DESC);
CREATE INDEX session_index_kind ON session_index (kind, list_state, recency DESC);
CREATE INDEX session_index_label ON session_index (label, list_state, recency DESC);
-- One branch per visible agent (visibility `agent`, or `all` with an agent allowlist).
CREATE INDEX session_index_agent ON session_index (agent_id, list_state, recency DESC);
CREATE INDEX session_index_agent_kind ON session_index (agent_id, kind, list_state, recency DESC);
CREATE INDEX session_index_agent_label ON session_index (agent_id, label, list_state, recency DESC);
-- The tree scope's children (spawned by the requester, of its own agent), and `subagents`' children.
CREATE INDEX session_index_spawned_by ON session_index (spawned_by, agent_id, list_state, recency DESC);
-- From a search hit (an FTS rowid, which is the recency) back to its row, and the next free slot.
CREATE UNIQUE INDEX session_index_recency ON session_index (recency);

-- Search: a contentless trigram FTS5 index whose rowid is the row's recency, so FTS5 hands out matches
-- newest first (`ORDER BY rowid DESC` and a rowid range are served by the FTS index itself).
DROP TRIGGER session_index_search_insert;
DROP TRIGGER session_index_search_delete;
DROP TRIGGER session_index_search_update;
DROP TABLE session_search;
CREATE VIRTUAL TABLE session_search USING fts5 (
  search_text,
  content = '',
  contentless_delete = 1,
  tokenize = 'trigram'
);
INSERT INTO session_search (rowid, search_text) SELECT recency, search_text FROM session_index;

-- The next free recency of a millisecond: one read at the end of that millisecond's slot range.
CREATE TRIGGER session_index_recency_insert AFTER INSERT ON session_index BEGIN
  UPDATE session_index SET recency = (
    SELECT COALESCE(MAX(recency) + 1, new.updated_at * 1048576) FROM session_index
    WHERE recency BETWEEN new.updated_at * 1048576 AND new.updated_at * 1048576 + 1048575
  ) WHERE rowid = new.rowid;
  INSERT INTO session_search (rowid, search_text)
    SELECT recency, new.search_text FROM session_index WHERE rowid = new.rowid;
END;
-- The upsert names every column, so the WHEN skips writes that change neither the order nor the text.
CREATE TRIGGER session_index_recency_update AFTER UPDATE OF updated_at, search_text ON session_index
WHEN old.updated_at IS NOT new.updated_at OR old.search_text IS NOT new.search_text BEGIN
  DELETE FROM session_search WHERE rowid = old.recency;
  UPDATE session_index SET recency = (
    SELECT COALESCE(MAX(recency) + 1, new.updated_at * 1048576) FROM session_index
    WHERE recency BETWEEN new.updated_at * 1048576 AND new.updated_at * 1048576 + 1048575
  ) WHERE rowid = new.rowid AND old.updated_at IS NOT new.updated_at;
  INSERT INTO session_search (rowid, search_text)
    SELECT recency, new.search_text FROM session_index WHERE rowid = new.rowid;
END;
CREATE TRIGGER session_index_recency_delete AFTER DELETE ON session_index BEGIN
  DELETE FROM session_search WHERE rowid = old.recency;
END;
