-- Records by their target (SPEC §16): an agent token's `GET /v1/deliveries` lists its own agent's
-- records, and says how many records of other agents' sessions are addressed to its sessions (a
-- sub-agent's completion to its requester, a watch notice to its watcher), which it already knows of.
-- That count reads this index over the key range `agent:<agentId>:` on every shard, never the table.
CREATE INDEX delivery_index_target ON delivery_index (target, agent_id);
