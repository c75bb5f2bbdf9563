import { applyMigrations, type SqlMigration } from "../../storage/migrations";
import { migrationsFrom0012 } from "./migrations-0012";
import { squashedSessionSchema } from "./squashed";

/**
 * The session object's schema, as an append-only list: a shipped entry is never edited; a change is a
 * new entry. Applied ids are recorded in `_migrations`.
 */
export const sessionMigrations: readonly SqlMigration[] = [
  {
    id: "0001_session_transcript_outbox",
    sql: `
      CREATE TABLE session (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        session_key TEXT NOT NULL,
        session_id TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        recorded_channel TEXT,
        chat_type TEXT,
        label TEXT,
        display_name TEXT,
        subject TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        model_override TEXT,
        thinking_level TEXT,
        verbose_level TEXT,
        send_policy TEXT,
        context_tokens INTEGER,
        input_tokens INTEGER,
        output_tokens INTEGER,
        total_tokens INTEGER,
        estimated_cost_usd REAL,
        status TEXT,
        started_at INTEGER,
        ended_at INTEGER,
        runtime_ms INTEGER,
        spawned_by TEXT,
        parent_session_key TEXT,
        spawn_depth INTEGER NOT NULL DEFAULT 0,
        system_sent INTEGER,
        aborted_last_run INTEGER,
        last_channel TEXT,
        last_to TEXT,
        delivery_context TEXT,
        first_user_text TEXT,
        last_message_preview TEXT,
        archived_at INTEGER,
        deleted_at INTEGER,
        version INTEGER NOT NULL
      );
      -- One row per message. seq numbers every message; chat_seq numbers only non-tool messages, so a
      -- history page with tool messages hidden is a range read on chat_seq, never a scan.
      CREATE TABLE message (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        role TEXT NOT NULL,
        chat_seq INTEGER UNIQUE,
        timestamp INTEGER NOT NULL,
        body TEXT NOT NULL
      );
      -- Cross-object effects written in the same transaction as the change that causes them.
      CREATE TABLE outbox (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        kind TEXT NOT NULL,
        dedupe_key TEXT NOT NULL UNIQUE,
        payload TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER NOT NULL,
        last_error TEXT
      );
    `,
  },
  {
    id: "0002_runs",
    sql: `
      -- One row per run, in arrival order (seq). A run's state lives here, so it survives eviction.
      CREATE TABLE run (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        run_id TEXT NOT NULL UNIQUE,
        -- a caller's idempotency key (send idempotencyKey, channel messageId): a repeat finds this run
        dedupe_key TEXT UNIQUE,
        status TEXT NOT NULL,
        deferred INTEGER NOT NULL DEFAULT 0,
        trigger_message_id TEXT,
        context TEXT,
        flow TEXT,
        reply_to TEXT,
        timeout_ms INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        started_at INTEGER,
        ended_at INTEGER,
        deadline_at INTEGER,
        attempts INTEGER NOT NULL DEFAULT 0,
        input_tokens INTEGER,
        output_tokens INTEGER,
        total_tokens INTEGER,
        reply TEXT,
        error TEXT,
        retries TEXT
      );
      CREATE INDEX run_status ON run (status, seq);
    `,
  },
  {
    id: "0003_subagents",
    sql: `
      -- A sub-agent's spawn: its task and settings (JSON), its ancestors nearest first (JSON array: where
      -- a completion goes when the requester is gone), and when it is due to be archived.
      ALTER TABLE session ADD COLUMN spawn TEXT;
      ALTER TABLE session ADD COLUMN lineage TEXT;
      ALTER TABLE session ADD COLUMN archive_at INTEGER;
      ALTER TABLE session ADD COLUMN last_run_id TEXT;
      -- Files given to sessions_spawn, readable by the child's runtime.
      CREATE TABLE attachment (
        name TEXT PRIMARY KEY,
        mime_type TEXT,
        encoding TEXT NOT NULL,
        bytes BLOB NOT NULL,
        size INTEGER NOT NULL,
        sha256 TEXT NOT NULL
      );
      -- The last steer per controlling session, for the 2-second rate limit.
      CREATE TABLE steer (requester_key TEXT PRIMARY KEY, at INTEGER NOT NULL);
    `,
  },
  {
    id: "0004_due_work",
    sql: `
      -- A queued sub-agent run waiting for its agent's maxConcurrent is not tried again before this.
      ALTER TABLE run ADD COLUMN not_before INTEGER;
      -- Everything the alarm must fire for, one row each; the alarm is set to the earliest (0 = now):
      -- outbox attempts (a pass in progress leases its entries a few seconds ahead), the oldest queued
      -- run, runs in flight (a deferred one at its deadline; one executing now, so that after an
      -- eviction it is recovered at once), and a sub-agent's archiving.
      CREATE VIEW due_work AS
        SELECT next_attempt_at AS due_at FROM outbox
        UNION ALL
        SELECT * FROM (SELECT COALESCE(not_before, 0) FROM run WHERE status = 'queued' ORDER BY seq LIMIT 1)
        UNION ALL
        SELECT CASE WHEN deferred = 1 THEN deadline_at ELSE 0 END FROM run WHERE status = 'running'
        UNION ALL
        SELECT archive_at FROM session WHERE archive_at IS NOT NULL AND deleted_at IS NULL;
    `,
  },
  {
    id: "0005_tool_calls",
    sql: `
      -- The result of each tool call of a run in flight, by its place in the run (call_index counts from 0
      -- in each attempt): a run resumed after an eviction replays these instead of repeating the effect.
      -- Removed with the run's end.
      CREATE TABLE tool_call (
        run_id TEXT NOT NULL,
        call_index INTEGER NOT NULL,
        name TEXT NOT NULL,
        result TEXT NOT NULL,
        PRIMARY KEY (run_id, call_index)
      );
    `,
  },
  {
    id: "0006_sent",
    sql: `
      -- What this session handed to another under an idempotency key or through the Queue: a repeat is
      -- answered from here (even before the Queue delivered the first), and a turn too large for a Queue
      -- message is read from here by the consumer.
      CREATE TABLE sent (
        run_id TEXT PRIMARY KEY,
        idempotency_key TEXT UNIQUE,
        target_key TEXT NOT NULL,
        turn TEXT,
        created_at INTEGER NOT NULL
      );
    `,
  },
  {
    id: "0007_due_work_orphans",
    sql: `
      -- due_work gains a spawned child that never got its first run (written by code that created the
      -- child and queued its run in two calls): a minute after its creation it fails itself, freeing its
      -- requester's maxChildrenPerAgent slot.
      DROP VIEW due_work;
      CREATE VIEW due_work AS
        SELECT next_attempt_at AS due_at FROM outbox
        UNION ALL
        SELECT * FROM (SELECT COALESCE(not_before, 0) FROM run WHERE status = 'queued' ORDER BY seq LIMIT 1)
        UNION ALL
        SELECT CASE WHEN deferred = 1 THEN deadline_at ELSE 0 END FROM run WHERE status = 'running'
        UNION ALL
        SELECT archive_at FROM session WHERE archive_at IS NOT NULL AND deleted_at IS NULL
        UNION ALL
        SELECT created_at + 60000 FROM session
          WHERE spawn IS NOT NULL AND status IS NULL AND deleted_at IS NULL AND NOT EXISTS (SELECT 1 FROM run);
    `,
  },
  {
    id: "0008_run_completion",
    sql: `
      -- Whether a run's end owed its requester a completion: 'owed' (delivered through the outbox entry
      -- completion:<run_id>), 'none' (not a sub-agent, a steer, a yield, a cascade, ANNOUNCE_SKIP), or
      -- 'failed' (nobody was left to take it). NULL while the run has not ended.
      ALTER TABLE run ADD COLUMN completion TEXT;
    `,
  },
  {
    id: "0009_list_pinned",
    sql: `
      -- 1 when the session is pinned with the sessions tool; listed as pinned: true.
      ALTER TABLE session ADD COLUMN pinned INTEGER;
    `,
  },
  {
    id: "0010_steering",
    sql: `
      -- Messages steered into a run in flight (sessions_send mode=steer), until its runtime takes them
      -- before its next step. The message itself is in the transcript already. taken: a runtime has
      -- been handed it; one never taken when the run ends starts a follow-up turn.
      CREATE TABLE steering (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        run_id TEXT NOT NULL,
        message_id TEXT NOT NULL,
        taken INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX steering_run ON steering (run_id, seq);
    `,
  },
  {
    id: "0011_due_work_idle_archive",
    sql: `
      -- An archive the sessions tool scheduled for the end of the run in flight (archive_at 0) is due only
      -- once no run is queued or running: while one is, it would wake the alarm over and over for nothing.
      DROP VIEW due_work;
      CREATE VIEW due_work AS
        SELECT next_attempt_at AS due_at FROM outbox
        UNION ALL
        SELECT * FROM (SELECT COALESCE(not_before, 0) FROM run WHERE status = 'queued' ORDER BY seq LIMIT 1)
        UNION ALL
        SELECT CASE WHEN deferred = 1 THEN deadline_at ELSE 0 END FROM run WHERE status = 'running'
        UNION ALL
        SELECT archive_at FROM session WHERE archive_at IS NOT NULL AND deleted_at IS NULL
          AND (archive_at > 0 OR NOT EXISTS (SELECT 1 FROM run WHERE status IN ('queued', 'running')))
        UNION ALL
        SELECT created_at + 60000 FROM session
          WHERE spawn IS NOT NULL AND status IS NULL AND deleted_at IS NULL AND NOT EXISTS (SELECT 1 FROM run);
    `,
  },
];

/** Every migration of the session object, in order: what an existing object replays step by step. */
export const allSessionMigrations: readonly SqlMigration[] = [...sessionMigrations, ...migrationsFrom0012];

/**
 * Applies every migration this object has not applied yet; how many it applied. A new object is created
 * from the squashed schema in one step (squashed.ts, generated from these by `npm run schema:squash`).
 */
export function applySessionMigrations(sql: SqlStorage): number {
  return applyMigrations(sql, allSessionMigrations, squashedSessionSchema);
}
