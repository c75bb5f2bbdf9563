-- Collector children (SPEC §15) are flagged in the index: they neither count toward maxChildrenPerAgent
-- nor hold up their requester's task (their results are collected with agents_wait, never announced).
ALTER TABLE session_index ADD COLUMN collector INTEGER NOT NULL DEFAULT 0;
-- A collector child's runs name their spawner (the requester that keeps their results): agents_wait finds
-- it after the child's row is gone (a `cleanup: "delete"` child), for as long as results are kept.
ALTER TABLE run_index ADD COLUMN spawner_key TEXT;
