-- SPEC §24: a session's move (each turn) no longer rewrites its list-search entry. Since 0003 the trigram FTS
-- index's rowid was the row's `recency`, so FTS5 yielded matches newest first; but every move then deleted
-- and re-inserted the entry: 2 of a chat turn's rows written. Its rowid is now the row's own rowid, which
-- never changes (the upsert updates in place; D1 runs no VACUUM), so only a change of `search_text` (a
-- rename, a label) rewrites it. A search now reads its matches and sorts them by `recency`
-- (src/index-db/list.ts `searchStatement`): its rows read are twice its matches, not twice its page.
DROP TRIGGER session_index_recency_insert;
DROP TRIGGER session_index_recency_update;
DROP TRIGGER session_index_recency_delete;
DROP TABLE session_search;
CREATE VIRTUAL TABLE session_search USING fts5 (
  search_text,
  content = '',
  contentless_delete = 1,
  tokenize = 'trigram'
);
INSERT INTO session_search (session_search, rank) VALUES ('secure-delete', 1);
INSERT INTO session_search (rowid, search_text) SELECT rowid, search_text FROM session_index;

-- The next free recency of the new row's millisecond (as in 0003), and its search entry.
CREATE TRIGGER session_index_recency_insert AFTER INSERT ON session_index BEGIN
  UPDATE session_index SET recency = (
    SELECT COALESCE(MAX(recency) + 1, new.updated_at * 1048576) FROM session_index
    WHERE recency BETWEEN new.updated_at * 1048576 AND new.updated_at * 1048576 + 1048575
  ) WHERE rowid = new.rowid;
  INSERT INTO session_search (rowid, search_text) VALUES (new.rowid, new.search_text);
END;
-- A writer that moved `updated_at` without re-slotting the row (none in src/: the upsert re-slots, 0016).
CREATE TRIGGER session_index_recency_update AFTER UPDATE OF updated_at ON session_index
WHEN old.updated_at IS NOT new.updated_at AND old.recency IS new.recency BEGIN
  UPDATE session_index SET recency = (
    SELECT COALESCE(MAX(recency) + 1, new.updated_at * 1048576) FROM session_index
    WHERE recency BETWEEN new.updated_at * 1048576 AND new.updated_at * 1048576 + 1048575
  ) WHERE rowid = new.rowid;
END;
CREATE TRIGGER session_index_search_text_update AFTER UPDATE OF search_text ON session_index
WHEN old.search_text IS NOT new.search_text BEGIN
  DELETE FROM session_search WHERE rowid = old.rowid;
  INSERT INTO session_search (rowid, search_text) VALUES (new.rowid, new.search_text);
END;
CREATE TRIGGER session_index_recency_delete AFTER DELETE ON session_index BEGIN
  DELETE FROM session_search WHERE rowid = old.rowid;
END;
