/** One step of a Durable Object's SQLite schema: applied once, in order, and never edited once shipped. */
export interface SqlMigration {
  id: string;
  sql: string;
}

/**
 * The schema the migrations up to and including `through` build, as one script: what a new object is
 * created with in one step instead of replaying every migration (SPEC §23 "A fresh object is cheap").
 */
export interface SquashedSchema {
  /** The ids of the migrations the script stands for, in order. */
  through: readonly string[];
  sql: string;
}

const MIGRATIONS_TABLE =
  "CREATE TABLE IF NOT EXISTS _migrations (id TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)";

/** Whether this object's SQLite holds a schema at all: one never used, or wiped, holds nothing. */
export function hasSchema(sql: SqlStorage): boolean {
  return (
    sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_migrations'").toArray().length > 0
  );
}

/**
 * Applies the migrations this object's SQLite has not applied yet, recording each in `_migrations`; how
 * many it applied. An object with no schema yet gets `squashed` in one step, recorded as the migrations
 * it stands for, and then only what came after it; an existing object migrates step by step.
 * Synchronous, as SQL in a Durable Object is: callers run it before serving anything.
 */
export function applyMigrations(
  sql: SqlStorage,
  migrations: readonly SqlMigration[],
  squashed?: SquashedSchema,
): number {
  const fresh = squashed !== undefined && !hasSchema(sql);
  sql.exec(MIGRATIONS_TABLE);
  if (fresh) {
    sql.exec(squashed.sql);
    const now = Date.now();
    for (const id of squashed.through)
      sql.exec("INSERT INTO _migrations (id, applied_at) VALUES (?, ?)", id, now);
  }
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
