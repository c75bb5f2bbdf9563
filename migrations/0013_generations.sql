-- SPEC §23 "Generations": a key created again after a deletion is a new session that inherits nothing,
-- and its stateVersion goes on from the deleted session's last one, so a stream cursor never goes
-- backwards. The deleted session's object storage is wiped entirely ("Deletion deletes"), so its last
-- event seq is kept here: one row per deleted key, holding no text of the session (the key only as its
-- SHA-256, hex), written by the deletion's index delivery in the key's shard and read once when a
-- session is created in an object holding no record (src/index-db/generations.ts). Bounded: rows older
-- than 30 days (the event log's own retention: no cursor older than that has anything to resume) are
-- pruned by the next deletion in the shard, through the index below.
CREATE TABLE session_floor (
  key_hash TEXT PRIMARY KEY,
  state_version INTEGER NOT NULL,
  deleted_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX session_floor_deleted ON session_floor (deleted_at);

-- The session id of the session that spawned this one (SPEC §23): a child belongs to the generation of
-- its parent that spawned it, so a key created again after a deletion lists none of the old one's
-- children (`subagents list`, `childSessions`). NULL for children spawned before this column: they stay
-- with their parent's key, as they were.
ALTER TABLE session_index ADD COLUMN spawned_by_id TEXT;
