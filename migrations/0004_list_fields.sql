-- sessions_list row fields of issue 11: `pinned` (set with the `sessions` tool) and `stateVersion` (the
-- session's last event seq, SPEC §13; 0 until a session writes events, and a row leaves it out at 0).
ALTER TABLE session_index ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;
ALTER TABLE session_index ADD COLUMN state_version INTEGER NOT NULL DEFAULT 0;
