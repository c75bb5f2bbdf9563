import { applyMigrations, type SqlMigration } from "../storage/migrations";

/** The agent object's SQLite migrations: append-only, applied ids kept in `_migrations` (as the session's). */
const agentMigrations: readonly SqlMigration[] = [
  {
    id: "0001_usage",
    sql: `
      -- Each ended run's usage, once (a repeated report of a runId is a no-op); pruned after a few days,
      -- long after its session's outbox stopped retrying it.
      CREATE TABLE run_usage (
        run_id TEXT PRIMARY KEY,
        day TEXT NOT NULL,
        tokens INTEGER NOT NULL,
        cost_usd REAL NOT NULL,
        recorded_at INTEGER NOT NULL
      );
      CREATE INDEX run_usage_day ON run_usage (day);
      -- The agent's spend per UTC day: what a run start is checked against, one row read.
      CREATE TABLE day_spend (
        day TEXT PRIMARY KEY,
        tokens INTEGER NOT NULL,
        cost_usd REAL NOT NULL,
        runs INTEGER NOT NULL
      );
    `,
  },
];

/** Applies the migrations this object has not applied yet. */
export function applyAgentMigrations(sql: SqlStorage): void {
  applyMigrations(sql, agentMigrations);
}
