-- A grant belongs to the session it was made for, not to its key (SPEC §18, §23 "Generations"): a key
-- created again after a deletion is a new session, and a grant made for the old one must not open it.
-- Every use compares `session_id` with the live session's id; a session's deletion revokes its grants
-- (by `session_key`, the index below). Grants made before this column existed get the id their key's
-- index row has in this database (where it is on another shard they stay NULL, and a NULL grant is
-- refused: mint it again).
ALTER TABLE grants ADD COLUMN session_id TEXT;
UPDATE grants SET session_id = (
  SELECT session_index.session_id FROM session_index WHERE session_index.session_key = grants.session_key
);
CREATE INDEX grants_by_session ON grants (session_key);
