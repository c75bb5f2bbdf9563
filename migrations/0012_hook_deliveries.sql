-- Hooks' idempotency (SPEC §22): one row per (hook, Idempotency-Key) a hook POST carried, in shard 0 (`DB`,
-- the home of the global tables), naming the run and session the first POST started, so a redelivery
-- answers the same 202 and starts nothing. Kept 24 hours: a row older than that is replaced by the next
-- POST with its key (a new run), and rows of a hook older than that are deleted when it is next called.
-- Read and written by primary key; the prune walks hook_deliveries_age.
CREATE TABLE hook_deliveries (
  hook TEXT NOT NULL,
  idempotency_key TEXT NOT NULL,
  run_id TEXT NOT NULL,
  session_key TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (hook, idempotency_key)
);
CREATE INDEX hook_deliveries_age ON hook_deliveries (hook, created_at);
