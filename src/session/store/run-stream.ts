import { cleanAssistantText } from "../../history/clean-assistant-text";
import { redactSecrets } from "../../history/redact";
import type { RunProgressPost, RunStreamEvent, RunStreamKind } from "../api/api-events";
import { eventsWritten } from "./feed-wake";

/** A run's stream stays replayable this long after the run ends (SPEC §14), then only its end is kept. */
export const RUN_STREAM_KEPT_MS = 5 * 60 * 1000;
const TERMINAL_KINDS = ["run_completed", "run_failed"] as const;
export const isTerminalKind = (kind: string): boolean => (TERMINAL_KINDS as readonly string[]).includes(kind);

/** Appends one item to a run's stream (inside the write it describes, where there is one). */
export function appendRunEvent(
  sql: SqlStorage,
  runId: string,
  kind: RunStreamKind,
  data?: Record<string, unknown>,
  now = Date.now(),
): void {
  sql.exec(
    `INSERT INTO run_event (run_id, seq, kind, occurred_at, data)
     VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM run_event WHERE run_id = ?), ?, ?, ?)`,
    runId,
    runId,
    kind,
    now,
    data ? JSON.stringify(data) : null,
  );
  eventsWritten(sql);
}

type RunEventRow = {
  run_id: string;
  seq: number;
  kind: RunStreamKind;
  occurred_at: number;
  data: string | null;
};

/** The kept items of a run's stream after `after`, oldest first. */
export function runEventsAfter(
  sql: SqlStorage,
  runId: string,
  after: number,
  limit: number,
): RunStreamEvent[] {
  return sql
    .exec<RunEventRow>(
      "SELECT * FROM run_event WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?",
      runId,
      after,
      limit,
    )
    .toArray()
    .map((row) => ({
      seq: row.seq,
      kind: row.kind,
      runId: row.run_id,
      occurredAt: row.occurred_at,
      ...(row.data !== null ? { data: JSON.parse(row.data) as Record<string, unknown> } : {}),
    }));
}

/** The reply text a run's stream has shown since its last restart (a retried attempt resets it). */
function streamedText(sql: SqlStorage, runId: string): string {
  const rows = sql
    .exec<{ data: string }>(
      "SELECT data FROM run_event WHERE run_id = ? AND kind = 'delta' ORDER BY seq",
      runId,
    )
    .toArray();
  let text = "";
  for (const row of rows) {
    const delta = JSON.parse(row.data) as { text?: string; reset?: boolean };
    text = delta.reset ? "" : text + (delta.text ?? "");
  }
  return text;
}

/** A webhook agent's progress, as run stream items (call inside a transaction). */
export function writeRunProgress(
  sql: SqlStorage,
  runId: string,
  progress: RunProgressPost,
  now: number,
): void {
  if (progress.text !== undefined) {
    const streamed = streamedText(sql, runId);
    if (progress.text.startsWith(streamed)) {
      const rest = progress.text.slice(streamed.length);
      if (rest) appendRunEvent(sql, runId, "delta", { text: rest }, now);
    } else {
      appendRunEvent(sql, runId, "delta", { text: "", reset: true }, now);
      if (progress.text) appendRunEvent(sql, runId, "delta", { text: progress.text }, now);
    }
  }
  if (progress.delta) appendRunEvent(sql, runId, "delta", { text: progress.delta }, now);
  if (progress.message) appendRunEvent(sql, runId, "progress", { message: progress.message }, now);
}

/** The last seq of a run's stream (0 when it has none). */
export function runStreamHead(sql: SqlStorage, runId: string): number {
  return sql
    .exec<{ seq: number }>("SELECT COALESCE(MAX(seq), 0) AS seq FROM run_event WHERE run_id = ?", runId)
    .one().seq;
}

/** Drops the replayable middle of streams of runs that ended long enough ago; their end stays. */
export function pruneRunStreams(sql: SqlStorage, now: number): void {
  sql.exec(
    `DELETE FROM run_event WHERE kind NOT IN ('run_completed', 'run_failed')
       AND run_id IN (SELECT run_id FROM run WHERE ended_at < ?)`,
    now - RUN_STREAM_KEPT_MS,
  );
}

export function clearRunStreams(sql: SqlStorage): void {
  sql.exec("DELETE FROM run_event");
}

/** A reply as a stream shows it: the safe view of `sessions_history` (reasoning gone, secrets masked). */
export function safeReplyText(reply: string): string {
  return redactSecrets(cleanAssistantText(reply)).text;
}

/**
 * A reply's text as a stream may show it while it is written: the safe view of everything so far
 * (reasoning blocks hidden, even unclosed ones; secrets masked), less its last word, which may be the
 * start of a secret not yet recognisable; the word goes out once what follows it (or the end) settles
 * it. Should the safe view ever rewrite what was shown, the stream restarts the reply (`reset`).
 */
export class SafeDeltas {
  #raw = "";
  #shown = "";
  readonly #emit: (data: { text: string; reset?: true }) => void;

  constructor(emit: (data: { text: string; reset?: true }) => void) {
    this.#emit = emit;
  }

  push(text: string): void {
    this.#raw += text;
    this.#release(false);
  }

  /** The reply is complete: its last word goes out too. */
  end(): void {
    this.#release(true);
  }

  /** A retried attempt writes its reply again from the start. */
  restart(): void {
    this.#raw = "";
    this.#shown = "";
    this.#emit({ text: "", reset: true });
  }

  #release(final: boolean): void {
    const safe = safeReplyText(this.#raw);
    const settled = final ? safe : safe.slice(0, safe.length - (/\S*$/.exec(safe)?.[0].length ?? 0));
    if (!settled.startsWith(this.#shown)) {
      this.#emit({ text: "", reset: true });
      this.#shown = "";
    }
    const rest = settled.slice(this.#shown.length);
    if (!rest) return;
    this.#emit({ text: rest });
    this.#shown = settled;
  }
}

/** Erasure: these runs' streams keep their end, with the reply or error text erased, and nothing else. */
export function eraseRunStreams(sql: SqlStorage, runIds: readonly string[], erased: string): void {
  const runs = JSON.stringify(runIds);
  sql.exec(
    `DELETE FROM run_event WHERE kind NOT IN ('run_completed', 'run_failed')
       AND run_id IN (SELECT value FROM json_each(?))`,
    runs,
  );
  sql.exec(
    `UPDATE run_event SET data = json_replace(data, '$.reply', ?, '$.error', ?)
       WHERE data IS NOT NULL AND run_id IN (SELECT value FROM json_each(?))`,
    erased,
    erased,
    runs,
  );
}
