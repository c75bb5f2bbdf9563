-- Fewer rows written per indexed message (D1 bills each index entry). `search_message_session`
-- (session_key, session_id) cost one entry per message, yet a session id names one generation of one key:
-- every delete of a session's rows goes by `session_id` through the prefix of UNIQUE (session_id,
-- message_id) instead, and the index goes (a DROP INDEX, no table rebuild: the table can be GBs).
--
-- The index also found a re-created key's leftovers (rows of an earlier generation whose delete never
-- reached the index) by key. Now the row upsert (src/index-db/write.ts), which writes the new generation's
-- `session_id` over the old one's row, takes the old generation's rows with it in the same statement
-- (trigger `session_index_search_generation`). Every row then belongs to its key's current index row (an
-- insert requires that row; its delete and its next generation take the rows), so an erasure finds a
-- key's rows through its index row's `session_id`.

-- Rows already left over (no index row of their key and id): removed once, while the index still finds
-- them. A skip scan over its distinct (key, id) pairs: each step is one index seek (the key's next id; past
-- its last one, a NULL id, the next key's first), so it reads a row per generation, not one per message.
WITH RECURSIVE generation (session_key, session_id) AS (
  SELECT * FROM (SELECT session_key, session_id FROM search_message INDEXED BY search_message_session
                 ORDER BY session_key, session_id LIMIT 1)
  UNION ALL
  SELECT
    CASE WHEN g.session_id IS NULL
      THEN (SELECT MIN(m.session_key) FROM search_message AS m INDEXED BY search_message_session
            WHERE m.session_key > g.session_key)
      ELSE g.session_key END,
    CASE WHEN g.session_id IS NULL
      THEN (SELECT MIN(m.session_id) FROM search_message AS m INDEXED BY search_message_session
            WHERE m.session_key = (SELECT MIN(n.session_key) FROM search_message AS n
                                   INDEXED BY search_message_session WHERE n.session_key > g.session_key))
      ELSE (SELECT MIN(m.session_id) FROM search_message AS m INDEXED BY search_message_session
            WHERE m.session_key = g.session_key AND m.session_id > g.session_id) END
  FROM generation AS g WHERE g.session_key IS NOT NULL
)
DELETE FROM search_message WHERE session_id IN (
  SELECT g.session_id FROM generation AS g
  WHERE g.session_id IS NOT NULL AND NOT EXISTS (
    SELECT 1 FROM session_index AS s WHERE s.session_key = g.session_key AND s.session_id = g.session_id));

DROP INDEX search_message_session;

-- A deleted session's index row takes its messages with it (as 0007's trigger did), by `session_id`.
DROP TRIGGER session_index_search_delete;
CREATE TRIGGER session_index_search_delete AFTER DELETE ON session_index BEGIN
  DELETE FROM search_message WHERE session_id = old.session_id;
END;

-- A new generation of a key (the upsert writing a new `session_id` over the old one's row) takes the old
-- generation's messages with it: a re-created key starts with an empty index. A search batch of the old
-- generation still in flight then inserts nothing (its index row of that id is gone).
CREATE TRIGGER session_index_search_generation AFTER UPDATE OF session_id ON session_index
WHEN old.session_id IS NOT new.session_id BEGIN
  DELETE FROM search_message WHERE session_id = old.session_id;
END;
