/** Session-object migrations of the second round (live sessions onwards), after those in migrations.ts. */
export const liveMigrations: ReadonlyArray<{ id: string; sql: string }> = [
  {
    id: "0012_event_log",
    sql: `
      -- The session's last event seq (SPEC §13 stateVersion); kept across re-creation, so seq never repeats.
      ALTER TABLE session ADD COLUMN state_version INTEGER;
      -- The append-only event log: dense seq per session, pruned from the oldest end (30 days, 10,000).
      CREATE TABLE event (
        seq INTEGER PRIMARY KEY,
        kind TEXT NOT NULL,
        actor_type TEXT NOT NULL,
        actor_id TEXT,
        run_id TEXT,
        occurred_at INTEGER NOT NULL,
        summary TEXT NOT NULL,
        data TEXT
      );
      CREATE INDEX event_time ON event (occurred_at);
      -- Each run's stream (SPEC §14): its events plus deltas and tool calls, replayable until 5 minutes
      -- after the run ends; then only the terminal item stays.
      CREATE TABLE run_event (
        run_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        kind TEXT NOT NULL,
        occurred_at INTEGER NOT NULL,
        data TEXT,
        PRIMARY KEY (run_id, seq)
      ) WITHOUT ROWID;
    `,
  },
];
