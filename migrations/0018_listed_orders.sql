-- SPEC §24, continued from 0016: the list orders a chat's turn still wrote beyond its own agent's and the
-- unique one. Each becomes partial, kept for the rows a walk would have to pass many of to find:
-- * every agent visible, archived or hidden sessions: the listed ones (list_state 0, the many) walk the unique
--   `recency` index and test the state, passing the few archived and hidden rows; the archived and hidden ones
--   keep an order of their own (the list's branch names `list_state != 0`, so SQLite may use it).
-- * under an agent, a kind other than a chat's (`group`, `other`: the many, which walk session_index_agent and
--   test the kind): `main`, `cron`, `hook`, `node` keep theirs (the branch names the same NOT IN).
DROP INDEX session_index_recent;
CREATE INDEX session_index_recent ON session_index (list_state, recency DESC) WHERE list_state != 0;
DROP INDEX session_index_agent_kind;
CREATE INDEX session_index_agent_kind ON session_index (agent_id, kind, list_state, recency DESC)
  WHERE kind NOT IN ('group', 'other');
