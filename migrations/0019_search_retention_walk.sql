-- SPEC §23 `searchRetention` without an index on time: fewer rows written per indexed message (D1 bills
-- each index entry). `search_message_time (timestamp)` cost an entry per message, written with every chat
-- turn, only for a pass that runs once a day. That pass now walks the primary key instead
-- (src/index-db/search-retention.ts): `id` is AUTOINCREMENT, so it only grows in the order rows were
-- indexed, and a message is indexed after it was written; the first row (by id) whose timestamp is past
-- a cutoff (and not in the future) marks the edge after which every row was indexed after that cutoff.
-- An agent's pass deletes its rows older than their kind's cutoff up to that edge, a bounded range of ids
-- per statement (reads only: D1 bills a row read a thousandth of a row written), and keeps where it got
-- to below, so no pass walks the same ids twice. What this changes: a row past the edge (a backlog indexed
-- late, an import) whose message is older waits until the edge passes it, about searchRetention after it
-- was indexed; the index pass skips messages already past their session's searchRetention, so an import
-- indexes none of those.
DROP INDEX search_message_time;

-- Where an agent's retention walk resumes in this shard: the first id it has not walked, per policy
-- (`<retentionMs>:<kinds, sorted>`, the kinds of the agent's sessions sharing that retention). A changed
-- policy is another row: its walk starts from the first id again, so no row of a kind new to a retention
-- stays behind a cursor that never checked it.
CREATE TABLE search_retention_walk (
  agent_id TEXT NOT NULL,
  policy TEXT NOT NULL,
  next_id INTEGER NOT NULL,
  PRIMARY KEY (agent_id, policy)
) WITHOUT ROWID;
