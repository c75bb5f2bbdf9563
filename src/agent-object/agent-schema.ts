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
  {
    id: "0002_cron",
    sql: `
      -- The agent's scheduled jobs (SPEC §22): the definition as JSON (src/cron/job-schema.ts), where it
      -- came from, and when it fires next. due_at is next_run_at, or later while failures back off.
      CREATE TABLE cron_job (
        job_id TEXT PRIMARY KEY,
        definition TEXT NOT NULL,
        source TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        next_run_at INTEGER,
        due_at INTEGER,
        last_run_at INTEGER,
        failures INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX cron_job_due ON cron_job (due_at);
      -- One row per slot taken (a job and its scheduled time, unique): the slot's run, created before
      -- the target is asked (status pending, retried at dispatch_at), so a slot runs once whatever dies.
      CREATE TABLE cron_run (
        run_id TEXT PRIMARY KEY,
        job_id TEXT NOT NULL,
        scheduled_at INTEGER NOT NULL,
        session_key TEXT NOT NULL,
        status TEXT NOT NULL,
        dispatch_at INTEGER,
        started_at INTEGER,
        ended_at INTEGER,
        duration_ms INTEGER,
        delivery_status TEXT,
        delivery_id TEXT,
        error TEXT,
        UNIQUE (job_id, scheduled_at)
      );
      CREATE INDEX cron_run_dispatch ON cron_run (dispatch_at);
      -- Isolated run sessions to delete once cron.sessionRetention has passed since their run ended.
      CREATE TABLE cron_cleanup (
        session_key TEXT PRIMARY KEY,
        delete_at INTEGER NOT NULL
      );
      CREATE INDEX cron_cleanup_due ON cron_cleanup (delete_at);
      -- The agent this object counts for and the cron.jobs it last took from the configuration (JSON).
      CREATE TABLE cron_meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );
    `,
  },
];

/** Applies the migrations this object has not applied yet. */
export function applyAgentMigrations(sql: SqlStorage): void {
  applyMigrations(sql, agentMigrations);
}
