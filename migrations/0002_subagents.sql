-- Sub-agent control (subagents list/kill/steer) reads children from the index: each child's task and
-- its latest run. The `session_index_spawned_by` index of 0001 serves these queries.
ALTER TABLE session_index ADD COLUMN spawn_task TEXT;
ALTER TABLE session_index ADD COLUMN last_run_id TEXT;
