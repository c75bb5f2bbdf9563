/** One step of a Durable Object's SQLite schema: applied once, in order, and never edited once shipped. */
export interface SqlMigration {
  id: string;
  sql: string;
}

/**
 * Applies the migrations this object's SQLite has not applied yet, recording each in `_migrations`; how
 * many it applied. Synchronous, as SQL in a Durable Object is: callers run it before serving anything.
 */
export function applyMigrations(sql: SqlStorage, migrations: readonly SqlMigration[]): number {
  sql.exec("CREATE TABLE IF NOT EXISTS _migrations (id TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)");
  const applied = new Set(
    sql
      .exec<{ id: string }>("SELECT id FROM _migrations")
      .toArray()
      .map((row) => row.id),
  );
  let count = 0;
  for (const migration of migrations) {
    if (applied.has(migration.id)) continue;
    sql.exec(migration.sql);
    sql.exec("INSERT INTO _migrations (id, applied_at) VALUES (?, ?)", migration.id, Date.now());
    count++;
  }
  return count;
}
