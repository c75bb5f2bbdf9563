/** The agent object's SQLite migrations: append-only, applied ids kept in `_migrations` (as the session's). */
const agentMigrations: ReadonlyArray<{ id: string; sql: string }> = [
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
  sql.exec("CREATE TABLE IF NOT EXISTS _migrations (id TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)");
  const applied = new Set(
    sql
      .exec<{ id: string }>("SELECT id FROM _migrations")
      .toArray()
      .map((row) => row.id),
  );
  for (const migration of agentMigrations) {
    if (applied.has(migration.id)) continue;
    sql.exec(migration.sql);
    sql.exec("INSERT INTO _migrations (id, applied_at) VALUES (?, ?)", migration.id, Date.now());
  }
}
