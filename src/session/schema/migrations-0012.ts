import type { SqlMigration } from "../../storage/migrations";

/** Session-object migrations from 0012 on (the second round onwards), after 0001–0011 in migrations.ts. */
export const migrationsFrom0012: readonly SqlMigration[] = [
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
  {
    id: "0013_watchers",
    sql: `
      -- Who watches this session (SPEC §13), one cursor per watcher session key: last_seen is the version
      -- the watcher has read up to (a notice says changesSince <last_seen>); notified is the first
      -- notify-eligible seq of the notice owed now (NULL: none pending); material the newest such seq
      -- (the notice's high-water mark). Only sessions with watchers have rows.
      CREATE TABLE watcher (
        watcher_key TEXT PRIMARY KEY,
        last_seen INTEGER NOT NULL,
        notified INTEGER,
        material INTEGER NOT NULL,
        created_at INTEGER NOT NULL
      ) WITHOUT ROWID;
      -- The watcher side: when this (non-sub-agent) session's coalesced wake turn is due; one row at most.
      CREATE TABLE watch_wake (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        due_at INTEGER NOT NULL
      );
      -- due_work gains the wake turn. A compound SELECT of a session object holds at most 5 terms
      -- (SQLITE_LIMIT_COMPOUND_SELECT), so the newer terms are nested as one.
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
        SELECT * FROM (
          SELECT created_at + 60000 FROM session
            WHERE spawn IS NOT NULL AND status IS NULL AND deleted_at IS NULL AND NOT EXISTS (SELECT 1 FROM run)
          UNION ALL
          SELECT due_at FROM watch_wake
        );
    `,
  },
  {
    id: "0014_delivery_ledger",
    sql: `
      -- The delivery ledger (SPEC §16): one record per handoff this session owes someone (a completion,
      -- an announce or reply post, a watch notice). The outbox entry that carries it is outbox_key; the
      -- payload is kept while it is undelivered, so an operator can retry a suspended one.
      CREATE TABLE delivery (
        delivery_id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        run_id TEXT,
        target TEXT NOT NULL,
        status TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER,
        first_attempt_at INTEGER,
        last_error TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        outbox_kind TEXT NOT NULL,
        outbox_key TEXT NOT NULL,
        payload TEXT
      ) WITHOUT ROWID;
      CREATE INDEX delivery_outbox ON delivery (outbox_key, status);
      CREATE INDEX delivery_run ON delivery (run_id, kind);
      CREATE INDEX delivery_updated ON delivery (updated_at);
    `,
  },
  {
    id: "0015_due_work_prune",
    sql: `
      -- due_work gains the ledger's pruning: 7 days (604800000 ms, DELIVERY_KEEP_MS) after the oldest
      -- settled record's last change, so an idle session drops its settled records (and their index rows)
      -- without waiting for other work to wake it. Nested with the newer terms (at most 5 per compound).
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
        SELECT * FROM (
          SELECT created_at + 60000 FROM session
            WHERE spawn IS NOT NULL AND status IS NULL AND deleted_at IS NULL AND NOT EXISTS (SELECT 1 FROM run)
          UNION ALL
          SELECT due_at FROM watch_wake
          UNION ALL
          SELECT * FROM (
            SELECT updated_at + 604800000 FROM delivery
              WHERE status NOT IN ('pending', 'in_progress') ORDER BY updated_at LIMIT 1
          )
        );
    `,
  },
  {
    id: "0016_structured_output",
    sql: `
      -- A collector run's structured_output calls (SPEC §15): its recorded result, else how many results
      -- were invalid and why the latest was; at the run's end, the schemaError it ended with.
      CREATE TABLE structured_output (
        run_id TEXT PRIMARY KEY,
        invalid_calls INTEGER NOT NULL DEFAULT 0,
        recorded INTEGER NOT NULL DEFAULT 0,
        result TEXT,
        schema_error TEXT
      ) WITHOUT ROWID;
    `,
  },
  {
    id: "0017_search_progress",
    sql: `
      -- How far the transcript is in the search index (D1 search_message, SPEC §18): every message with
      -- seq <= indexed_seq was written there. flagged: the index row says this session is behind
      -- (search_backlog = 1). One row at most; none until the first index pass.
      CREATE TABLE search_progress (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        indexed_seq INTEGER NOT NULL,
        flagged INTEGER NOT NULL DEFAULT 0
      );
      -- A transcript written before search existed is indexed as a backlog, like an import.
      INSERT INTO outbox (kind, dedupe_key, payload, next_attempt_at)
        SELECT 'search_index', 'search', json_object('throughSeq', MAX(seq)), 0 FROM message
        HAVING COUNT(*) > 0;
    `,
  },
  {
    id: "0018_collectors",
    sql: `
      -- A requester's collector runs (SPEC §15): one row per admitted member, FIFO by seq. state is queued
      -- (admitted, waiting for a running slot of its group: its child exists, its run held), running (its
      -- run released, through the outbox) or ended (its result is here, or it was cancelled). Results are
      -- kept 7 days after ended_at for agents_wait; completed_seq is the order results arrived in.
      CREATE TABLE collector (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        run_id TEXT NOT NULL UNIQUE,
        group_id TEXT NOT NULL,
        child_key TEXT NOT NULL,
        label TEXT,
        state TEXT NOT NULL,
        max_concurrent INTEGER NOT NULL,
        status TEXT,
        result TEXT,
        structured TEXT,
        error TEXT,
        schema_error TEXT,
        usage TEXT,
        completed_seq INTEGER,
        created_at INTEGER NOT NULL,
        started_at INTEGER,
        ended_at INTEGER
      );
      CREATE INDEX collector_group ON collector (group_id, state, seq);
      CREATE INDEX collector_ended ON collector (ended_at) WHERE ended_at IS NOT NULL;
      -- How many members each group ever admitted: maxTotalPerGroup is a lifetime cap, which the pruning
      -- of ended rows must not lower.
      CREATE TABLE collector_admitted (group_id TEXT PRIMARY KEY, admitted INTEGER NOT NULL);
      -- A collector child's run held (queued, not runnable) until its requester releases it: it waits
      -- for a running slot of its group. Not due work while held.
      ALTER TABLE run ADD COLUMN held INTEGER;
      -- due_work gains the pruning of results 7 days (604800000 ms) after the oldest one ended, nested
      -- with the newer terms (a compound SELECT holds at most 5); a held queued run is not due (NULL).
      DROP VIEW due_work;
      CREATE VIEW due_work AS
        SELECT next_attempt_at AS due_at FROM outbox
        UNION ALL
        SELECT * FROM (
          SELECT CASE WHEN held = 1 THEN NULL ELSE COALESCE(not_before, 0) END FROM run
            WHERE status = 'queued' ORDER BY seq LIMIT 1
        )
        UNION ALL
        SELECT CASE WHEN deferred = 1 THEN deadline_at ELSE 0 END FROM run WHERE status = 'running'
        UNION ALL
        SELECT archive_at FROM session WHERE archive_at IS NOT NULL AND deleted_at IS NULL
          AND (archive_at > 0 OR NOT EXISTS (SELECT 1 FROM run WHERE status IN ('queued', 'running')))
        UNION ALL
        SELECT * FROM (
          SELECT created_at + 60000 FROM session
            WHERE spawn IS NOT NULL AND status IS NULL AND deleted_at IS NULL AND NOT EXISTS (SELECT 1 FROM run)
          UNION ALL
          SELECT due_at FROM watch_wake
          UNION ALL
          SELECT * FROM (
            SELECT updated_at + 604800000 FROM delivery
              WHERE status NOT IN ('pending', 'in_progress') ORDER BY updated_at LIMIT 1
          )
          UNION ALL
          SELECT * FROM (
            SELECT ended_at + 604800000 FROM collector WHERE ended_at IS NOT NULL ORDER BY ended_at LIMIT 1
          )
        );
    `,
  },
  {
    id: "0019_safe_copy",
    sql: `
      -- Each message as sessions_history returns it (SPEC §5.2 steps 1–3), made when it is stored, so a
      -- history page reads copies instead of cleaning, redacting and measuring every message on every read.
      -- safe_body is NULL when the stored body is already safe as it is; safe_flags: 1 truncated, 2
      -- redacted; safe_rules the sanitizer's rules version it was made with. A row without one, or made
      -- under other rules, is made safe when read (rows stored before this migration are).
      ALTER TABLE message ADD COLUMN safe_body TEXT;
      ALTER TABLE message ADD COLUMN safe_flags INTEGER;
      ALTER TABLE message ADD COLUMN safe_rules INTEGER;
    `,
  },
  {
    id: "0020_child",
    sql: `
      -- The sessions this one spawned, each noted when its child is created (the child's outbox tells its
      -- parent), kept across re-creation as the index keeps their spawned_by: session_status asks the
      -- index for its children's counts only when there are some. A session from before this table may
      -- have children it was never told of: its '*' row always sends status to the index.
      CREATE TABLE child (session_key TEXT PRIMARY KEY, noted_at INTEGER NOT NULL);
      INSERT INTO child (session_key, noted_at) SELECT '*', 0 FROM session;
    `,
  },
  {
    id: "0021_safe_rules_2",
    sql: `
      -- Sanitizer rules 2 (issue 35): only a cut of content sets the truncated flag (1), not dropping
      -- usage, cost, details or signatures. A copy with no cut text marker and no omitted image was not
      -- cut, so it holds under rules 2 with that flag cleared; the rest are made safe again when read.
      UPDATE message SET safe_flags = safe_flags & ~1, safe_rules = 2
        WHERE safe_rules = 1
          AND instr(COALESCE(safe_body, body), '(truncated)') = 0
          AND instr(COALESCE(safe_body, body), '"omitted":true') = 0;
    `,
  },
  {
    id: "0022_child_run",
    sql: `
      -- A child is one record with the run it was spawned with (issue 29): the child's creation tells its
      -- parent both, in one call, and the parent writes its child_spawned event from that same write.
      -- Children known only from their child_spawned event (the creation's note not yet here) get a row,
      -- and every row its latest spawn's run, read once from the log here and never again.
      ALTER TABLE child ADD COLUMN run_id TEXT;
      INSERT OR IGNORE INTO child (session_key, noted_at)
        SELECT json_extract(data, '$.childSessionKey'), occurred_at FROM event
          WHERE kind = 'child_spawned' AND json_extract(data, '$.childSessionKey') IS NOT NULL;
      UPDATE child SET run_id = (
        SELECT run_id FROM event WHERE kind = 'child_spawned'
          AND json_extract(data, '$.childSessionKey') = child.session_key ORDER BY seq DESC LIMIT 1);
    `,
  },
  {
    id: "0023_run_answered_by",
    sql: `
      -- SPEC §20: the model and provider that answered a run (a fallback's when one did), its cache tokens
      -- where the provider reports them, and its estimated cost by that runtime's pricing; NULL is unknown.
      -- The session keeps the model that answered its last run, for its status card and list row.
      ALTER TABLE run ADD COLUMN model TEXT;
      ALTER TABLE run ADD COLUMN provider TEXT;
      ALTER TABLE run ADD COLUMN cache_read_tokens INTEGER;
      ALTER TABLE run ADD COLUMN cache_write_tokens INTEGER;
      ALTER TABLE run ADD COLUMN estimated_cost_usd REAL;
      ALTER TABLE session ADD COLUMN answered_model TEXT;
    `,
  },
  {
    id: "0024_compaction",
    sql: `
      -- Compaction (SPEC §20): the summary of the session's older turns that later prompts start from, and
      -- the last message seq it covers (the messages after it are the uncompacted history). One row: a new
      -- compaction summarizes from the previous summary on and replaces it. The transcript keeps every
      -- message; compaction_count is what the status card shows.
      CREATE TABLE compaction (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        operation_id TEXT NOT NULL,
        through_seq INTEGER NOT NULL,
        summary TEXT NOT NULL,
        compacted_at INTEGER NOT NULL
      );
      ALTER TABLE session ADD COLUMN compaction_count INTEGER;
    `,
  },
  {
    id: "0025_group_context",
    sql: `
      -- Unaddressed group messages (SPEC §21 groupHistoryLimit): held here, the newest N only, until the
      -- next addressed turn moves them into the transcript just before its message. The transcript is
      -- never pruned (its numbering stays contiguous); this table is.
      CREATE TABLE group_context (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        body TEXT NOT NULL
      );
    `,
  },
  {
    id: "0026_delivery_parts",
    sql: `
      -- A platform reply split in parts (SPEC §21, issue 31): how many are out, so that a retry after a
      -- failed part resumes there and never posts the earlier parts again.
      ALTER TABLE delivery ADD COLUMN parts_sent INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    id: "0027_live_draft",
    sql: `
      -- A reply shown as it is written (SPEC §21 Live, streaming "edit"): the platform message a run's
      -- partial reply lives in, so its final reply edits that message instead of posting a second one,
      -- and a run that ends without a reply retracts it. Kept across an eviction (a resumed run goes on
      -- editing the same message); removed when the run's final post or retraction is owed.
      CREATE TABLE live_draft (
        run_id TEXT PRIMARY KEY,
        message_id TEXT NOT NULL,
        edited_at INTEGER NOT NULL,
        shown TEXT NOT NULL
      );
    `,
  },
  {
    id: "0028_run_webhook",
    sql: `
      -- SPEC §22: where a run's outcome is POSTed when it ends (JSON { url, hook? }): a run webhook given to
      -- chat.send or sessions_spawn, or a hook's \`webhook\` delivery. NULL: the run owes no webhook.
      ALTER TABLE run ADD COLUMN webhook TEXT;
    `,
  },
  {
    id: "0029_retention",
    sql: `
      -- SPEC §23 every table bounded: the pruning of ended runs (runRetention) and of sent records (their
      -- dedupe window) walks these, oldest first, a bounded batch at a time (store/retention.ts).
      CREATE INDEX run_ended ON run (ended_at) WHERE ended_at IS NOT NULL;
      CREATE INDEX sent_created ON sent (created_at);
    `,
  },
  {
    id: "0030_spawned_by_id",
    sql: `
      -- SPEC §23 "Generations": a child belongs to the session that spawned it, not to its key. The
      -- parent's sessionId, which the parent answers when the child's creation is told to it; the index
      -- row carries it (spawned_by_id), so a key created again lists none of the old session's children.
      ALTER TABLE session ADD COLUMN spawned_by_id TEXT;
    `,
  },
  {
    id: "0033_index_landed",
    sql: `
      -- SPEC §24 "only what changed": the session's D1 index row as its last write that landed (JSON,
      -- column → value, with its version), so the next write sets only the columns that differ (each
      -- indexed column set costs its index entries, changed or not). One row; none until a write lands.
      CREATE TABLE index_landed (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        version INTEGER NOT NULL,
        row TEXT NOT NULL
      );
    `,
  },
  {
    id: "0034_due_work_sent",
    sql: `
      -- SPEC §23 "every table bounded": sent records are due work of their own, so an object that only
      -- ever sent (a requester never created as a session) or an idle session still prunes them: the
      -- text 30 minutes (1800000 ms, DELIVERY_DEADLINE_MS) after the oldest send nothing is owed for,
      -- the record 24 hours (86400000 ms, SENT_DEDUPE_WINDOW_MS) after the oldest. Nested with the newer
      -- terms (a compound SELECT holds at most 5).
      DROP VIEW due_work;
      CREATE VIEW due_work AS
        SELECT next_attempt_at AS due_at FROM outbox
        UNION ALL
        SELECT * FROM (
          SELECT CASE WHEN held = 1 THEN NULL ELSE COALESCE(not_before, 0) END FROM run
            WHERE status = 'queued' ORDER BY seq LIMIT 1
        )
        UNION ALL
        SELECT CASE WHEN deferred = 1 THEN deadline_at ELSE 0 END FROM run WHERE status = 'running'
        UNION ALL
        SELECT archive_at FROM session WHERE archive_at IS NOT NULL AND deleted_at IS NULL
          AND (archive_at > 0 OR NOT EXISTS (SELECT 1 FROM run WHERE status IN ('queued', 'running')))
        UNION ALL
        SELECT * FROM (
          SELECT created_at + 60000 FROM session
            WHERE spawn IS NOT NULL AND status IS NULL AND deleted_at IS NULL AND NOT EXISTS (SELECT 1 FROM run)
          UNION ALL
          SELECT due_at FROM watch_wake
          UNION ALL
          SELECT * FROM (
            SELECT updated_at + 604800000 FROM delivery
              WHERE status NOT IN ('pending', 'in_progress') ORDER BY updated_at LIMIT 1
          )
          UNION ALL
          SELECT * FROM (
            SELECT ended_at + 604800000 FROM collector WHERE ended_at IS NOT NULL ORDER BY ended_at LIMIT 1
          )
          UNION ALL
          SELECT * FROM (
            SELECT * FROM (SELECT created_at + 86400000 FROM sent ORDER BY created_at LIMIT 1)
            UNION ALL
            SELECT * FROM (
              SELECT created_at + 1800000 FROM sent WHERE turn IS NOT NULL
                AND NOT EXISTS (SELECT 1 FROM outbox WHERE dedupe_key = 'send:' || sent.run_id)
              ORDER BY created_at LIMIT 1
            )
          )
        );
      -- The sessions this one watches (SPEC §13; the watcher's side of a watched session's \`watcher\`
      -- row), so that its deletion removes those rows at once (store/watchers.ts).
      CREATE TABLE watching (target_key TEXT PRIMARY KEY, created_at INTEGER NOT NULL);
    `,
  },
];
