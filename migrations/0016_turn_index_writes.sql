-- SPEC §24 "only what changed is written" (issue 34). D1 bills every row written, and a session's index row
-- moves on every turn (its `updated_at`, so its `recency`): each index holding `recency` rewrites its entry, and
-- each one is a row written. These list indexes stay whole: every listed session moves through them.
--   session_index_recency (unique), session_index_recent, session_index_agent, session_index_agent_kind
-- These become partial: only a row that has the column pays for it. A chat has no label and no spawner, so its
-- turns no longer write them; the rows that have them list exactly as before (`label = ?` and `spawned_by = ?`
-- imply IS NOT NULL, so SQLite still walks the index in order).
DROP INDEX session_index_label;
DROP INDEX session_index_agent_label;
DROP INDEX session_index_spawned_by;
CREATE INDEX session_index_label ON session_index (label, list_state, recency DESC) WHERE label IS NOT NULL;
CREATE INDEX session_index_agent_label ON session_index (agent_id, label, list_state, recency DESC)
  WHERE label IS NOT NULL;
CREATE INDEX session_index_spawned_by ON session_index (spawned_by, agent_id, list_state, recency DESC)
  WHERE spawned_by IS NOT NULL;
-- Every agent visible with `kinds` (the operator's filter) walks session_index_recent and tests the kind: it
-- reads a page ÷ the kind's share of rows instead of a page, and no turn pays for a per-kind order of every agent.
DROP INDEX session_index_kind;
-- The maintenance pass's idle sessions walk session_index_agent oldest first (recency orders as updated_at).
DROP INDEX session_index_agent_idle;

-- The upsert moves `recency` itself, in the same write as `updated_at` (src/index-db/write.ts): the trigger of
-- 0003 wrote the row a second time to re-slot it. It now re-slots only a row a writer moved without doing so.
DROP TRIGGER session_index_recency_update;
CREATE TRIGGER session_index_recency_update AFTER UPDATE OF updated_at, search_text, recency ON session_index
WHEN old.updated_at IS NOT new.updated_at OR old.search_text IS NOT new.search_text
  OR old.recency IS NOT new.recency BEGIN
  DELETE FROM session_search WHERE rowid = old.recency;
  UPDATE session_index SET recency = (
    SELECT COALESCE(MAX(recency) + 1, new.updated_at * 1048576) FROM session_index
    WHERE recency BETWEEN new.updated_at * 1048576 AND new.updated_at * 1048576 + 1048575
  ) WHERE rowid = new.rowid AND old.updated_at IS NOT new.updated_at AND old.recency IS new.recency;
  INSERT INTO session_search (rowid, search_text)
    SELECT recency, new.search_text FROM session_index WHERE rowid = new.rowid;
END;

-- A run's row: a rowid table with a TEXT primary key stores the key twice (the row and its autoindex), a
-- written row each. WITHOUT ROWID, the primary key is the row: 3 rows written a run instead of 4.
CREATE TABLE run_index_keyed (
  run_id TEXT PRIMARY KEY,
  session_key TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  spawner_key TEXT
) WITHOUT ROWID;
INSERT INTO run_index_keyed (run_id, session_key, created_at, spawner_key)
  SELECT run_id, session_key, created_at, spawner_key FROM run_index;
DROP TABLE run_index;
ALTER TABLE run_index_keyed RENAME TO run_index;
CREATE INDEX run_index_session ON run_index (session_key);
CREATE INDEX run_index_created ON run_index (created_at);
