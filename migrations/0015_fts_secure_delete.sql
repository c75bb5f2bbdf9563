-- SPEC §23 "Deletion deletes": a deleted row's terms leave the FTS5 segments at once. Without this,
-- FTS5 records a delete as a tombstone in a new segment (the row's tokens again) and the original
-- entries stay until a merge reaches them, so a plain DELETE of a session left its words in
-- `search_fts_data` (test/session/deletion/deletion-canary.test.ts). `secure-delete` (SQLite 3.42+)
-- removes them from the existing segments instead: each delete costs the pages of its own terms, never
-- a merge of the whole index (the `optimize` erasure and large maintenance deletes still make).
-- The setting is persistent (kept in each table's `_config`).
INSERT INTO search_fts (search_fts, rank) VALUES ('secure-delete', 1);
INSERT INTO session_search (session_search, rank) VALUES ('secure-delete', 1);
