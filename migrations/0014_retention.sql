-- SPEC §23 retention and maintenance (issue 33). Each session reports its object's size and message count
-- into its index row (written with every index sync), so the storage report is one GROUP BY per shard
-- instead of a fan-out to every object.
ALTER TABLE session_index ADD COLUMN object_bytes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE session_index ADD COLUMN message_count INTEGER NOT NULL DEFAULT 0;
-- The report's largest sessions of an agent: one walk of this index, LIMIT 5.
CREATE INDEX session_index_agent_bytes ON session_index (agent_id, object_bytes DESC);
-- The maintenance pass's idle sessions of an agent, oldest first (pruneAfter, archiveAfter).
CREATE INDEX session_index_agent_idle ON session_index (agent_id, list_state, updated_at);
-- run_index rows older than runRetention, pruned in batches.
CREATE INDEX run_index_created ON run_index (created_at);
-- Expired grants (revoked ones expire too: a TTL is at most 7 days), pruned a week after they expired.
CREATE INDEX grants_expiry ON grants (expires_at);
-- Search rows older than searchRetention, oldest first (filtered by agent and kind through their index row).
CREATE INDEX search_message_time ON search_message (timestamp);
