-- Collector children (SPEC §15) are flagged in the index: they neither count toward maxChildrenPerAgent
-- nor hold up their requester's task (their results are collected with agents_wait, never announced).
ALTER TABLE session_index ADD COLUMN collector INTEGER NOT NULL DEFAULT 0;
